/// A digest algorithm haul can compute and check: the ones publishers and servers give.
///
/// The order of the cases is the order haul lists digests in (reports, messages): the
/// strongest first, the legacy ones last.
public enum DigestAlgorithm: String, Sendable, Hashable, CaseIterable, Comparable, Codable {
  case sha256
  case sha512
  case sha1
  case md5

  /// The digest's length in bytes.
  public var byteCount: Int {
    switch self {
    case .sha256: 32
    case .sha512: 64
    case .sha1: 20
    case .md5: 16
    }
  }

  /// The digest's length in hex digits, as manifests and checksum files write it.
  public var hexLength: Int { byteCount * 2 }

  /// The name people read in messages: `SHA-256`, `SHA-512`, `SHA-1`, `MD5`.
  public var displayName: String {
    switch self {
    case .sha256: "SHA-256"
    case .sha512: "SHA-512"
    case .sha1: "SHA-1"
    case .md5: "MD5"
    }
  }

  /// The algorithm whose hex form has `hexLength` digits (how `sha256sum`-style files are
  /// told apart), or `nil` for a length none has.
  public init?(hexLength: Int) {
    guard let algorithm = Self.allCases.first(where: { $0.hexLength == hexLength }) else {
      return nil
    }
    self = algorithm
  }

  /// The canonical order: the order of the cases.
  public static func < (lhs: Self, rhs: Self) -> Bool {
    lhs.rank < rhs.rank
  }

  /// The position among the cases.
  var rank: Int {
    switch self {
    case .sha256: 0
    case .sha512: 1
    case .sha1: 2
    case .md5: 3
    }
  }
}
