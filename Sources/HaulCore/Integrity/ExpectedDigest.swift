/// A digest a file must have, and where haul learned it.
///
/// `source` is the label the report's `verified` list and error messages use:
/// `manifest:sha256`, `checksums:sha512`, `server:repr-digest:sha-256`,
/// `server:content-digest:sha-512`, `server:digest:md5`, `server:x-goog-hash:md5`,
/// `server:x-amz-checksum-sha256`.
///
/// Codable so that a resume state can keep the digests its server declared.
public struct ExpectedDigest: Sendable, Hashable, Codable {
  public var algorithm: DigestAlgorithm
  /// The digest, lowercase hex of `algorithm.hexLength` digits.
  public var hex: String
  /// Where it came from, as the report names it.
  public var source: String

  public init(algorithm: DigestAlgorithm, hex: String, source: String) {
    self.algorithm = algorithm
    self.hex = hex
    self.source = source
  }

  /// The algorithms `expected` asks for, distinct, in canonical order: what a `DigestSet`
  /// for them must compute.
  public static func algorithms(_ expected: [ExpectedDigest]) -> [DigestAlgorithm] {
    Array(Set(expected.map(\.algorithm))).sorted()
  }

  /// Checks `computed` against every digest of `expected`, in order: the sources verified
  /// (for the report's `verified`), or the first that does not match.
  ///
  /// An algorithm missing from `computed` is a mismatch too (a digest that was asked for and
  /// not computed is not verified).
  public static func verify(_ expected: [ExpectedDigest], against computed: DigestValues)
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
public struct DigestMismatch: Error, Sendable, Hashable, CustomStringConvertible {
  /// The digest expected, with its source.
  public var expected: ExpectedDigest
  /// The digest computed; `nil` when it was not computed.
  public var actual: String?

  public init(expected: ExpectedDigest, actual: String?) {
    self.expected = expected
    self.actual = actual
  }

  /// `SHA-512 ab12…, expected cd34… (manifest:sha512)`.
  public var description: String {
    "\(expected.algorithm.displayName) \(actual ?? "not computed"), expected \(expected.hex)"
      + " (\(expected.source))"
  }

  /// The transfer's failure: `checksum_mismatch`, naming the algorithm and the source.
  public var transferError: TransferError {
    TransferError(.checksumMismatch, description)
  }
}
