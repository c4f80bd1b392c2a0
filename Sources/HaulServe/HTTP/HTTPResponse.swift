import Foundation

/// The handler's answer to one request: a status, header fields, and a body that is either
/// whole or written over time (`HTTPStream`, for Server-Sent Events), or the switch to
/// WebSocket.
///
/// libmicrohttpd writes `Content-Length` (bytes) or `Transfer-Encoding: chunked` (a stream
/// over HTTP/1.1) itself, so those two fields are left out if given here.
public struct HTTPResponse: Sendable {
  /// What follows the header.
  public enum Body: Sendable {
    /// A body known whole; it is copied once, into libmicrohttpd.
    case bytes([UInt8])
    /// A body written over time, sent chunked as it comes (see `HTTPStream`).
    case stream(HTTPStream)
    /// No body: with status `101`, the connection becomes a WebSocket that `handler`
    /// serves (made by `WebSocketHandshake.response`).
    case webSocket(WebSocketHandler)
  }

  public var status: Int
  /// Header fields by name, sent as given.
  public var headers: [String: String]
  public var body: Body

  public init(status: Int, headers: [String: String] = [:], body: Body = .bytes([])) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  /// A JSON answer (`Content-Type: application/json`) from encoded bytes.
  public static func json(status: Int = 200, _ bytes: [UInt8]) -> HTTPResponse {
    HTTPResponse(
      status: status, headers: ["Content-Type": "application/json"], body: .bytes(bytes))
  }

  /// A JSON answer (`Content-Type: application/json`) from what `JSONEncoder` made.
  public static func json(status: Int = 200, _ data: Data) -> HTTPResponse {
    json(status: status, [UInt8](data))
  }

  /// A `200` answer of Server-Sent Events: `text/event-stream`, not to be cached, its body
  /// what is written into `stream`.
  public static func eventStream(_ stream: HTTPStream) -> HTTPResponse {
    HTTPResponse(
      status: 200,
      headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-cache"],
      body: .stream(stream))
  }

  /// The server's own answer to a body over `limit` bytes, in the API's error format
  /// (docs/service.md, "Native API"), given before the handler is called.
  static func tooLarge(limit: Int) -> HTTPResponse {
    let message = "the request body is over \(limit) bytes"
    return json(
      status: 413,
      Array(#"{"error":{"code":"too_large","message":"\#(message)"}}"#.utf8))
  }
}
