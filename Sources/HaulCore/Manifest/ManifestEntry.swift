import Foundation

/// One validated transfer from the manifest.
public struct ManifestEntry: Sendable, Hashable {
  /// Download into `path`, or upload `path`'s bytes.
  public enum Operation: String, Sendable, Hashable {
    case download
    case upload
  }

  /// The physical, 1-based line number in the manifest.
  public var line: Int
  /// The line exactly as written (without its line break), for `--failed`.
  public var text: String
  public var operation: Operation
  /// The first source; `http` or `https`.
  public var url: URL
  /// Further sources for the same bytes, tried in order when one fails.
  public var mirrors: [URL]
  /// Local file, relative to the output directory; validated: no `..`, not absolute.
  public var path: String
  /// `PUT` or `POST` for uploads; `GET` for downloads.
  public var method: String
  /// Expected byte count, if given.
  public var size: Int64?
  /// Expected SHA-256, 64 lowercase hex digits, if given.
  public var sha256: String?
  /// Extra request headers for this entry (secrets: never printed).
  public var headers: [HTTPField]

  public init(
    line: Int, text: String, operation: Operation = .download, url: URL, mirrors: [URL] = [],
    path: String, method: String? = nil, size: Int64? = nil, sha256: String? = nil,
    headers: [HTTPField] = []
  ) {
    self.line = line
    self.text = text
    self.operation = operation
    self.url = url
    self.mirrors = mirrors
    self.path = path
    self.method = method ?? (operation == .upload ? "PUT" : "GET")
    self.size = size
    self.sha256 = sha256
    self.headers = headers
  }

  /// The entry's sources in the order they are tried: `url`, then `mirrors`.
  public var sources: [URL] { [url] + mirrors }
}
