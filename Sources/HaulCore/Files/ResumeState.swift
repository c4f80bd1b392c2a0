import Foundation

/// What a partial file needs beside it to be resumed safely: which entry it belongs to and
/// the validator of the server's version it holds a prefix of.
///
/// It never records how many bytes were written: the partial file's own length is the
/// offset, so no crash can leave state that points past the bytes really on disk. The file
/// holds one JSON line and the SHA-256 of that line; a state whose digest does not match
/// (torn, truncated, edited) is discarded and the entry starts over.
public struct ResumeState: Codable, Sendable, Hashable {
  /// The entry's first source URL, without userinfo.
  public var url: String
  /// The entry's expected digest and size, as the manifest gave them.
  public var sha256: String?
  public var size: Int64?
  /// The validator (strong ETag or Last-Modified) of the version the partial holds.
  public var validator: String?
  /// The resource's full length, when the server said.
  public var total: Int64?

  public init(url: String, sha256: String?, size: Int64?, validator: String?, total: Int64?) {
    self.url = url
    self.sha256 = sha256
    self.size = size
    self.validator = validator
    self.total = total
  }

  /// The state file's bytes.
  public func encoded() -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let json = (try? encoder.encode(self)) ?? Data()
    let line = Array(json)
    return line + [0x0A] + Array(SHA256.hex(of: line).utf8) + [0x0A]
  }

  /// Decodes a state file's bytes; `nil` when they are damaged in any way.
  public static func decode(_ bytes: [UInt8]) -> ResumeState? {
    let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
    guard lines.count == 3, lines[2].isEmpty,
      String(decoding: lines[1], as: UTF8.self) == SHA256.hex(of: lines[0])
    else { return nil }
    return try? JSONDecoder().decode(ResumeState.self, from: Data(lines[0]))
  }

  /// Whether a partial described by this state may continue `entry`.
  public func belongs(to entry: ManifestEntry) -> Bool {
    url == Exchange.redacted(entry.url) && sha256 == entry.sha256 && size == entry.size
  }
}
