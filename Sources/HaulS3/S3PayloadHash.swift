import HaulCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The `X-Amz-Content-SHA256` of a request: `UNSIGNED-PAYLOAD` over https (TLS already
/// protects the bytes, and hashing would read a large file twice), the SHA-256 of the body
/// over plain http, read from the file in chunks, never whole.
enum S3PayloadHash {
  /// The bytes read at a time while hashing a body file.
  static let chunkSize = 1 << 20

  /// The payload hash for a request with `body` sent over `scheme`.
  static func of(_ body: RequestBody?, scheme: String?) throws(TransferError) -> String {
    if scheme?.lowercased() == "https" { return SigV4Signer.unsignedPayload }
    guard let body else { return SigV4Signer.emptyPayloadHash }
    return try sha256(of: body)
  }

  /// The SHA-256 of the bytes `body` sends (its range of its file); `io` when they cannot be
  /// read or the file is shorter.
  static func sha256(of body: RequestBody) throws(TransferError) -> String {
    let descriptor = open(body.path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw TransferError(.io, "cannot open the upload's file to hash it: errno \(errno)")
    }
    defer { close(descriptor) }
    let hasher = SHA256()
    var buffer = [UInt8](repeating: 0, count: chunkSize)
    var position = body.offset
    var remaining = body.length
    while remaining > 0 {
      let wanted = Int(min(Int64(chunkSize), remaining))
      let count = buffer.withUnsafeMutableBytes {
        pread(descriptor, $0.baseAddress, wanted, off_t(position))
      }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else {
        throw TransferError(.io, "cannot read the upload's file to hash it")
      }
      buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
      position += Int64(count)
      remaining -= Int64(count)
    }
    return hasher.finalize()
  }
}
