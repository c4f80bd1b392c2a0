/// What one exchange produced: the final response head (no redirect followed) and how many
/// body bytes were handed to the sink.
public struct TransferResponse: Sendable, Hashable {
  public var head: ResponseHead
  /// Body bytes delivered to the sink's `receive(body:)` (0 when the body was discarded).
  public var bodyBytes: Int64
  /// Request body bytes sent (uploads).
  public var sentBytes: Int64
  /// How long the exchange took, where the transport can tell: `-j auto` reads the time to
  /// the first byte as the server's latency, and `haul bench` reports it.
  public var timing: TransferTiming?

  public init(
    head: ResponseHead, bodyBytes: Int64, sentBytes: Int64 = 0, timing: TransferTiming? = nil
  ) {
    self.head = head
    self.bodyBytes = bodyBytes
    self.sentBytes = sentBytes
    self.timing = timing
  }
}

/// The times of one exchange, in seconds.
public struct TransferTiming: Sendable, Hashable {
  /// From the exchange's start to its request being sent: name lookup, connect, TLS, or the
  /// wait for a connection to come free. 0 when the transport cannot tell (`firstByte` and
  /// `answer` then include it).
  public var waited: Double
  /// From the request being sent to the first byte of the answer: the server's time plus
  /// one round trip.
  public var firstByte: Double
  /// From the request being sent to the end of the answer.
  public var answer: Double
  /// Whether the exchange opened a connection of its own rather than reusing one; `nil`
  /// when the transport cannot tell.
  public var openedConnection: Bool?

  public init(waited: Double, firstByte: Double, answer: Double, openedConnection: Bool?) {
    self.waited = waited
    self.firstByte = firstByte
    self.answer = answer
    self.openedConnection = openedConnection
  }

  /// From the exchange's start to its end.
  public var total: Double { waited + answer }
}
