/// An incremental SHA-256 from OpenSSL's EVP interface: a `StreamingDigest` of `.sha256`,
/// kept under its own name for the callers that need only this one digest.
///
/// Not thread-safe: one owner at a time feeds it (a transfer hands it to its transport for
/// the duration of an exchange), as `StreamingDigest` says.
package final class SHA256: Sendable {
  private let digest = StreamingDigest(.sha256)

  package init() {}

  /// Starts over, as if newly created.
  package func reset() {
    digest.reset()
  }

  /// Feeds `bytes` into the digest.
  package func update(_ bytes: UnsafeRawBufferPointer) {
    digest.update(bytes)
  }

  /// The digest of everything fed so far, as 64 lowercase hex digits. Leaves the hasher
  /// unusable until `reset()`.
  package func finalize() -> String {
    digest.finalize()
  }

  /// The SHA-256 of `bytes`, as 64 lowercase hex digits.
  package static func hex(of bytes: some Sequence<UInt8>) -> String {
    StreamingDigest.hex(.sha256, of: bytes)
  }
}
