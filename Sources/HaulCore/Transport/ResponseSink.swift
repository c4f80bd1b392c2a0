/// Where a transport delivers a response: its head, then its body bytes as they arrive.
///
/// Threading: a transport calls one sink from one thread at a time, in order (`receive(head:)`
/// once per response, then `receive(body:)` per chunk). Conformers are classes whose state is
/// owned by whoever holds the transfer; they need no locks for this protocol's calls, but any
/// value they also publish to other threads (progress) must be atomic.
///
/// Back-pressure: `receive(body:)` runs on the transport's I/O path and must not block for
/// long; it writes straight to disk (`pwrite`) and feeds the digest, allocating nothing.
public protocol ResponseSink: AnyObject, Sendable {
  /// Called once the response head is complete. Return `true` to receive the body; `false`
  /// to have the transport discard it (error pages, redirects: they never land in a file).
  /// Throwing aborts the exchange with that error.
  func receive(head: ResponseHead) throws(TransferError) -> Bool

  /// Called for each chunk of an accepted body, in order. Throwing aborts the exchange with
  /// that error (a full disk, a body longer than expected).
  func receive(body: UnsafeRawBufferPointer) throws(TransferError)

  /// Called as an upload's body goes out, with the total request-body bytes sent so far in
  /// this exchange; for progress only. Must be cheap: it may be called per chunk.
  func sent(totalBytes: Int64)

  /// Called for each interim (`1xx`) response other than `100 Continue` that arrives before
  /// the final head, such as the resumable upload draft's `104`; a transport that cannot
  /// see interim responses never calls it.
  func receive(interim head: ResponseHead)
}

extension ResponseSink {
  public func sent(totalBytes: Int64) {}

  public func receive(interim head: ResponseHead) {}
}
