import HaulCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The `X-Amz-Content-SHA256` of a request: `UNSIGNED-PAYLOAD` over https (TLS already
/// protects the bytes, and hashing would read a large file twice), the SHA-256 of the body
/// over plain http: of a body's file read in chunks, never whole, or of the bytes it holds.
enum S3PayloadHash {
  /// The bytes read at a time while hashing a body file.
  static let chunkSize = 1 << 20

  /// The payload hash for a request with `body` sent over `scheme`.
  static func of(_ body: RequestBody?, scheme: String?) throws(TransferError) -> String {
    if scheme?.lowercased() == "https" { return SigV4Signer.unsignedPayload }
    guard let body else { return SigV4Signer.emptyPayloadHash }
    return try sha256(of: body)
  }

  /// The SHA-256 of the bytes `body` sends (its range of its file, or the bytes it holds);
  /// `io` when they cannot be read or the file is shorter.
  static func sha256(of body: RequestBody) throws(TransferError) -> String {
    switch body.content {
    case .bytes(let bytes): SHA256.hex(of: bytes)
    case .file(let path, let offset, let length):
      try sha256(ofFile: path, from: offset, length: length)
    }
  }

  /// The SHA-256 of the file at `path`'s `length` bytes from `position` on.
  private static func sha256(
    ofFile path: String, from start: Int64, length: Int64
  ) throws(TransferError) -> String {
    var (position, remaining) = (start, length)
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw TransferError(.io, "cannot open the upload's file to hash it: errno \(errno)")
    }
    defer { close(descriptor) }
    let hasher = SHA256()
    var buffer = [UInt8](repeating: 0, count: chunkSize)
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
