/// What serves one WebSocket connection, given by the HTTP handler in its `101` answer
/// (`WebSocketHandshake.response`): the actions run when the connection opens, for each text
/// message, and when it closes, and the connection's bounds.
///
/// Threading: `opened` and `closed` run on the server's WebSocket thread and must not block;
/// `message` runs on the server's handler threads (it may block briefly, as an HTTP handler
/// may), one message of a connection at a time, so its answers keep the messages' order.
public struct WebSocketHandler: Sendable {
  /// The largest message taken, all its fragments together; a larger one closes the
  /// connection with `1009` before it is read whole.
  public var maxMessageSize: Int
  /// How many bytes may wait to be sent before the client is cut off as too slow a reader.
  public var outgoingLimit: Int
  public var opened: @Sendable (WebSocketConnection) -> Void
  /// Answers a text message (its UTF-8 bytes) with a text message, or nothing.
  public var message: @Sendable (WebSocketConnection, [UInt8]) -> [UInt8]?
  public var closed: @Sendable (WebSocketConnection) -> Void

  public init(
    maxMessageSize: Int, outgoingLimit: Int = HTTPStream.defaultLimit,
    opened: @escaping @Sendable (WebSocketConnection) -> Void = { _ in },
    message: @escaping @Sendable (WebSocketConnection, [UInt8]) -> [UInt8]?,
    closed: @escaping @Sendable (WebSocketConnection) -> Void = { _ in }
  ) {
    precondition(maxMessageSize > 0 && outgoingLimit > 0, "a WebSocket needs room")
    self.maxMessageSize = maxMessageSize
    self.outgoingLimit = outgoingLimit
    self.opened = opened
    self.message = message
    self.closed = closed
  }
}
