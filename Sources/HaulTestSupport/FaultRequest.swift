import Foundation
import HaulCore

/// A parsed HTTP/1.1 request head, as the `FaultServer` sees it.
struct FaultRequest {
  var method: String
  var target: String
  var path: String
  var query: String?
  var version: String
  var headers: [HTTPField]

  /// Parses a request head (without the final empty line); `nil` when malformed.
  init?(head: String) {
    var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
    guard !lines.isEmpty else { return nil }
    let requestLine = lines.removeFirst().split(separator: " ")
    guard requestLine.count == 3 else { return nil }
    method = String(requestLine[0])
    target = String(requestLine[1])
    version = String(requestLine[2])
    if let mark = target.firstIndex(of: "?") {
      path = String(target[..<mark])
      query = String(target[target.index(after: mark)...])
    } else {
      path = target
      query = nil
    }
    headers = []
    for line in lines where !line.isEmpty {
      guard let colon = line.firstIndex(of: ":") else { return nil }
      headers.append(
        HTTPField(
          String(line[..<colon]),
          String(line[line.index(after: colon)...]).trimmingASCIIWhitespace()))
    }
  }

  func value(for name: String) -> String? { headers.value(for: name) }

  /// Whether the client asked to keep the connection open after this exchange.
  var keepAlive: Bool {
    let connection = value(for: "Connection")?.lowercased() ?? ""
    if version == "HTTP/1.0" { return connection.contains("keep-alive") }
    return !connection.contains("close")
  }

  /// Whether a request body follows the head.
  var hasBody: Bool {
    if let length = value(for: "Content-Length").flatMap({ Int64($0) }) { return length > 0 }
    return value(for: "Transfer-Encoding")?.lowercased().contains("chunked") ?? false
  }

  /// The query's parameters, percent-decoded (the last of repeated keys wins).
  var options: [String: String] { Self.options(query ?? "") }

  /// The options of a `/dav/<options>/` or `/h2o/<options>/` folder, written in its first
  /// segment as a query is (the URLs a listing names carry no query); `nil` for any other
  /// path.
  var folderOptions: [String: String]? {
    let segments = path.split(separator: "/", omittingEmptySubsequences: false)
    guard segments.count > 3, segments[1] == "dav" || segments[1] == "h2o" else { return nil }
    return Self.options(String(segments[2]))
  }

  private static func options(_ query: String) -> [String: String] {
    var result: [String: String] = [:]
    for pair in query.split(separator: "&") {
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      let key = String(parts[0]).removingPercentEncoding ?? String(parts[0])
      let value = parts.count > 1 ? String(parts[1]) : ""
      result[key] = value.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? value
    }
    return result
  }
}
