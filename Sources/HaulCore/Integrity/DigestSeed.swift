/// Bytes one algorithm is fed before a file's own, so that a digest of a framed file is
/// checked with the algorithms haul already computes.
///
/// Git names a file by its blob id, the SHA-1 of `blob SIZE\0` followed by its bytes
/// (`gitBlob(size:)`): a Hugging Face Hub listing gives a file that is not in LFS by that
/// id alone. The seed is fed again at every `reset()`, and wherever the file is hashed
/// (as it arrives, read back after segments, or in place on a rerun).
package struct DigestSeed: Sendable, Hashable {
  /// The algorithm that is seeded; the others hash the file alone.
  package var algorithm: DigestAlgorithm
  /// The bytes fed first.
  package var bytes: [UInt8]

  package init(algorithm: DigestAlgorithm, bytes: [UInt8]) {
    self.algorithm = algorithm
    self.bytes = bytes
  }

  /// Git's header of a blob of `size` bytes, before SHA-1: `blob SIZE\0`.
  package static func gitBlob(size: Int64) -> DigestSeed {
    DigestSeed(algorithm: .sha1, bytes: Array("blob \(size)".utf8) + [0])
  }
}

extension DigestValues {
  /// These digests without the one `seed` fed (a git blob id is no SHA-1 of the file): what
  /// the report's `digests` may name as the file's own.
  package func unseeded(_ seed: DigestSeed?) -> DigestValues {
    guard let seed else { return self }
    var values = self
    values[seed.algorithm] = nil
    return values
  }
}
