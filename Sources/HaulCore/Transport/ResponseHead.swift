/// The status line and header fields of one HTTP response.
public struct ResponseHead: Sendable, Hashable {
  /// The HTTP status code (200, 206, 404, ...).
  public var status: Int
  /// Header fields in the order received; names as sent by the server.
  public var headers: [HTTPField]

  public init(status: Int, headers: [HTTPField] = []) {
    self.status = status
    self.headers = headers
  }

  /// The first value of header `name` (ASCII case ignored).
  public func value(for name: String) -> String? { headers.value(for: name) }

  /// `Content-Length`, when present and a valid non-negative integer.
  public var contentLength: Int64? {
    value(for: "Content-Length").flatMap { Int64($0.trimmingASCIIWhitespace()) }
      .flatMap { $0 >= 0 ? $0 : nil }
  }
}

extension String {
  /// The string without leading and trailing spaces and tabs (and CR/LF).
  public func trimmingASCIIWhitespace() -> String {
    var s = Substring(self)
    while let c = s.first, c == " " || c == "\t" || c == "\r" || c == "\n" { s.removeFirst() }
    while let c = s.last, c == " " || c == "\t" || c == "\r" || c == "\n" { s.removeLast() }
    return String(s)
  }
}
