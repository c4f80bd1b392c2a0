/// An incremental SHA-256 from OpenSSL's EVP interface: a `StreamingDigest` of `.sha256`,
/// kept under its own name for the callers that need only this one digest.
///
/// Not thread-safe: one owner at a time feeds it (a transfer hands it to its transport for
/// the duration of an exchange). `@unchecked Sendable` so that ownership can move between
/// threads; it is never shared.
public final class SHA256: @unchecked Sendable {
  private let digest = StreamingDigest(.sha256)

  public init() {}

  /// Starts over, as if newly created.
  public func reset() {
    digest.reset()
  }

  /// Feeds `bytes` into the digest.
  public func update(_ bytes: UnsafeRawBufferPointer) {
    digest.update(bytes)
  }

  /// The digest of everything fed so far, as 64 lowercase hex digits. Leaves the hasher
  /// unusable until `reset()`.
  public func finalize() -> String {
    digest.finalize()
  }

  /// The SHA-256 of `bytes`, as 64 lowercase hex digits.
  public static func hex(of bytes: some Sequence<UInt8>) -> String {
    StreamingDigest.hex(.sha256, of: bytes)
  }
}
