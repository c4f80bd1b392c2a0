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

  /// How the report's `verified` names this digest taken from the manifest
  /// (`manifest:sha256`). Spelled out: interpolating the case would reflect on it at run
  /// time, per entry.
  package var manifestSource: String {
    switch self {
    case .sha256: "manifest:sha256"
    case .sha512: "manifest:sha512"
    case .sha1: "manifest:sha1"
    case .md5: "manifest:md5"
    }
  }

  /// How the report's `verified` names this digest taken from a `--checksums` file
  /// (`checksums:sha256`).
  package var checksumsSource: String {
    switch self {
    case .sha256: "checksums:sha256"
    case .sha512: "checksums:sha512"
    case .sha1: "checksums:sha1"
    case .md5: "checksums:md5"
    }
  }

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
