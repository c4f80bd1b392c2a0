internal import CCrypto

/// An incremental digest of one algorithm, computed by OpenSSL's EVP interface.
///
/// Feeding it allocates nothing; `finalize()` allocates the hex string. Not thread-safe: one
/// owner at a time feeds it (a transfer hands it to its transport for the duration of an
/// exchange).
// unchecked: one owner at a time feeds the context; ownership moves, it is never shared.
package final class StreamingDigest: @unchecked Sendable {
  /// What this digest computes.
  package let algorithm: DigestAlgorithm
  private let context: OpaquePointer
  /// Fed after every reset, before anything else (`DigestSeed`); usually empty.
  private let seed: [UInt8]

  /// A digest of `algorithm`, fed `seed` first (and again after each `reset()`).
  package init(_ algorithm: DigestAlgorithm, seed: [UInt8] = []) {
    guard let context = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new failed: out of memory") }
    self.algorithm = algorithm
    self.context = context
    self.seed = seed
    reset()
  }

  deinit { EVP_MD_CTX_free(context) }

  /// Starts over, as if newly created.
  package func reset() {
    guard EVP_DigestInit_ex(context, EVPDigests.method(algorithm), nil) == 1 else {
      fatalError("EVP_DigestInit_ex failed for \(algorithm.displayName)")
    }
    if !seed.isEmpty { seed.withUnsafeBytes { update($0) } }
  }

  /// Feeds `bytes` into the digest.
  package func update(_ bytes: UnsafeRawBufferPointer) {
    guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
    EVP_DigestUpdate(context, base, bytes.count)
  }

  /// The digest of everything fed so far, as lowercase hex (`algorithm.hexLength` digits).
  /// Leaves the digest unusable until `reset()`.
  package func finalize() -> String {
    // 64 bytes: the longest digest haul computes (SHA-512), on the stack.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer in
      var length: UInt32 = 0
      EVP_DigestFinal_ex(context, buffer.baseAddress, &length)
      return Hex.encode(
        UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[0..<Int(length)])))
    }
  }

  /// The digest of `bytes` with `algorithm`, as lowercase hex.
  package static func hex(_ algorithm: DigestAlgorithm, of bytes: some Sequence<UInt8>) -> String {
    let digest = StreamingDigest(algorithm)
    let array = Array(bytes)
    array.withUnsafeBytes { digest.update($0) }
    return digest.finalize()
  }
}

/// The EVP method of each algorithm, fetched from OpenSSL once per process.
///
/// OpenSSL 3 looks up the implementation on every `EVP_DigestInit_ex` given a legacy
/// `EVP_sha256()`-style method (a locked table search); a method fetched once
/// (`haul_digest_method`, `EVP_MD_fetch`) skips that, which matters when a run starts a
/// digest for each of a million small files.
enum EVPDigests {
  /// The fetched methods, kept for the life of the process (never freed).
  // unchecked: fetched once and never freed; OpenSSL's methods are read-only, for any thread.
  private struct Methods: @unchecked Sendable {
    let sha256: OpaquePointer
    let sha512: OpaquePointer
    let sha1: OpaquePointer
    let md5: OpaquePointer
  }

  private static let methods = Methods(
    sha256: fetch("SHA256"), sha512: fetch("SHA512"), sha1: fetch("SHA1"), md5: fetch("MD5"))

  /// The method that computes `algorithm`.
  static func method(_ algorithm: DigestAlgorithm) -> OpaquePointer {
    switch algorithm {
    case .sha256: methods.sha256
    case .sha512: methods.sha512
    case .sha1: methods.sha1
    case .md5: methods.md5
    }
  }

  private static func fetch(_ name: String) -> OpaquePointer {
    guard let method = haul_digest_method(name) else {
      fatalError("OpenSSL has no \(name) digest")
    }
    return method
  }
}
