internal import CCrypto

/// An incremental SHA-256 from OpenSSL's EVP interface.
///
/// Not thread-safe: one owner at a time feeds it (a transfer hands it to its transport for
/// the duration of an exchange). `@unchecked Sendable` so that ownership can move between
/// threads; it is never shared.
public final class SHA256: @unchecked Sendable {
  private let context: OpaquePointer

  public init() {
    guard let context = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new failed: out of memory") }
    self.context = context
    reset()
  }

  deinit { EVP_MD_CTX_free(context) }

  /// Starts over, as if newly created.
  public func reset() {
    EVP_DigestInit_ex(context, EVP_sha256(), nil)
  }

  /// Feeds `bytes` into the digest.
  public func update(_ bytes: UnsafeRawBufferPointer) {
    guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
    EVP_DigestUpdate(context, base, bytes.count)
  }

  /// The digest of everything fed so far, as 64 lowercase hex digits. Leaves the hasher
  /// unusable until `reset()`.
  public func finalize() -> String {
    var digest = [UInt8](repeating: 0, count: 32)
    var length: UInt32 = 0
    EVP_DigestFinal_ex(context, &digest, &length)
    return Self.hex(digest)
  }

  /// The SHA-256 of `bytes`, as 64 lowercase hex digits.
  public static func hex(of bytes: some Sequence<UInt8>) -> String {
    let hasher = SHA256()
    let array = Array(bytes)
    array.withUnsafeBytes { hasher.update($0) }
    return hasher.finalize()
  }

  private static func hex(_ digest: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out = [UInt8]()
    out.reserveCapacity(digest.count * 2)
    for byte in digest {
      out.append(digits[Int(byte >> 4)])
      out.append(digits[Int(byte & 0x0f)])
    }
    return String(decoding: out, as: UTF8.self)
  }
}
