/// What one exchange produced: the final response head (no redirect followed) and how many
/// body bytes were handed to the sink.
public struct TransferResponse: Sendable, Hashable {
  public var head: ResponseHead
  /// Body bytes delivered to the sink's `receive(body:)` (0 when the body was discarded).
  public var bodyBytes: Int64
  /// Request body bytes sent (uploads).
  public var sentBytes: Int64

  public init(head: ResponseHead, bodyBytes: Int64, sentBytes: Int64 = 0) {
    self.head = head
    self.bodyBytes = bodyBytes
    self.sentBytes = sentBytes
  }
}
