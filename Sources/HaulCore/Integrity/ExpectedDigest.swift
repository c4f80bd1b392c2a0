/// A digest a file must have, and where haul learned it.
///
/// `source` is the label the report's `verified` list and error messages use:
/// `manifest:sha256`, `checksums:sha512`, `server:repr-digest:sha-256`,
/// `server:content-digest:sha-512`, `server:digest:md5`, `server:x-goog-hash:md5`,
/// `server:x-amz-checksum-sha256`.
///
/// Codable so that a resume state can keep the digests its server declared.
package struct ExpectedDigest: Sendable, Hashable, Codable {
  package var algorithm: DigestAlgorithm
  /// The digest, lowercase hex of `algorithm.hexLength` digits.
  package var hex: String
  /// Where it came from, as the report names it.
  package var source: String

  package init(algorithm: DigestAlgorithm, hex: String, source: String) {
    self.algorithm = algorithm
    self.hex = hex
    self.source = source
  }

  /// The algorithms `expected` asks for, distinct, in canonical order: what a `DigestSet`
  /// for them must compute.
  package static func algorithms(_ expected: [ExpectedDigest]) -> [DigestAlgorithm] {
    Array(Set(expected.map(\.algorithm))).sorted()
  }

  /// Checks `computed` against every digest of `expected`, in order: the sources verified
  /// (for the report's `verified`), or the first that does not match.
  ///
  /// An algorithm missing from `computed` is a mismatch too (a digest that was asked for and
  /// not computed is not verified).
  package static func verify(_ expected: [ExpectedDigest], against computed: DigestValues)
    -> Result<[String], DigestMismatch>
  {
    var verified: [String] = []
    verified.reserveCapacity(expected.count)
    for digest in expected {
      let actual = computed[digest.algorithm]
      guard actual == digest.hex else {
        return .failure(DigestMismatch(expected: digest, actual: actual))
      }
      verified.append(digest.source)
    }
    return .success(verified)
  }
}

/// A file whose digest differs from one it was expected to have.
package struct DigestMismatch: Error, Sendable, Hashable, CustomStringConvertible {
  /// The digest expected, with its source.
  package var expected: ExpectedDigest
  /// The digest computed; `nil` when it was not computed.
  package var actual: String?

  package init(expected: ExpectedDigest, actual: String?) {
    self.expected = expected
    self.actual = actual
  }

  /// `SHA-512 ab12…, expected cd34… (manifest:sha512)`.
  package var description: String {
    "\(expected.algorithm.displayName) \(actual ?? "not computed"), expected \(expected.hex)"
      + " (\(expected.source))"
  }

  /// The transfer's failure: `checksum_mismatch`, naming the algorithm and the source.
  package var transferError: TransferError {
    TransferError(.checksumMismatch, description)
  }
}
