/// The daemon's event stream (`GET /v1/events`) as an asynchronous sequence of
/// `DaemonEvent`s, from `DaemonClient.events(since:)`.
///
/// Each iterator opens a connection of its own, on a thread of its own, at its first `next()`,
/// and hands out each event as soon as its bytes arrive.
///
/// - Reconnection: after a cut (the daemon drops a reader that falls too far behind)
///   or a daemon restart, it reconnects by itself with `Last-Event-ID` set to the last event
///   it took, so events go on where they stopped; the daemon sends a `gap` event first when
///   it no longer holds some. It waits 0.1 s before reconnecting, doubling up to 2 s while
///   the daemon stays away, and keeps trying for as long as the consumer iterates.
/// - Errors: the sequence throws, and then ends, when the first connection fails (`.noDaemon`
///   when no daemon runs, `.api` for a wrong token) or the daemon later refuses the stream
///   with an error other than a 5xx.
/// - Back-pressure: about 1,024 events wait for a slow consumer; beyond that the stream stops
///   reading, and the daemon cuts it off and replays what it still holds on reconnection.
/// - Cancellation: cancelling the consuming task ends the sequence (`next()` returns `nil`)
///   and closes the connection at once; so does dropping the iterator.
public struct DaemonEvents: AsyncSequence, Sendable {
  public typealias Element = DaemonEvent
  public typealias Failure = DaemonError

  /// Where the events come from.
  public let address: DaemonAddress
  /// The id after which the first connection starts (`Last-Event-ID`); `nil` for events from
  /// now on.
  public let since: Int64?
  /// Whether the entries that started or ended well are left out (`entry-started`,
  /// `entry-done`): what a client that follows jobs, not files, reads of a job of millions.
  public let failuresOnly: Bool

  init(address: DaemonAddress, since: Int64?, failuresOnly: Bool = false) {
    self.address = address
    self.since = since
    self.failuresOnly = failuresOnly
  }

  public func makeAsyncIterator() -> Iterator {
    Iterator(
      subscription: EventStreamSubscription(
        address: address, since: since, failuresOnly: failuresOnly))
  }

  /// Reads one connection's events; see `DaemonEvents`.
  public struct Iterator: AsyncIteratorProtocol {
    public typealias Element = DaemonEvent
    public typealias Failure = DaemonError

    private let subscription: EventStreamSubscription

    init(subscription: EventStreamSubscription) {
      self.subscription = subscription
    }

    /// How many events have arrived that `next()` will hand out without waiting: a consumer
    /// that writes them somewhere may gather its writes while this is above 0.
    public var buffered: Int { subscription.storage.buffered }

    /// The next event; `nil` once the consuming task is cancelled.
    public mutating func next() async throws(DaemonError) -> DaemonEvent? {
      try await subscription.storage.next().get()
    }

    /// The next event; `nil` once the consuming task is cancelled.
    public mutating func next(
      isolation actor: isolated (any Actor)?
    ) async throws(DaemonError) -> DaemonEvent? {
      try await subscription.storage.next().get()
    }

    /// Every event that has arrived and that `next()` has not handed out, at least one
    /// (waiting for it), in order; `nil` once the consuming task is cancelled. A consumer
    /// that writes each event somewhere takes them as they came, a chunk of the stream at a
    /// time, rather than waking for each.
    public mutating func nextBatch() async throws(DaemonError) -> [DaemonEvent]? {
      try await subscription.storage.nextBatch().get()
    }
  }
}

/// An iterator's hold on its stream: when the last copy of the iterator goes, the stream's
/// thread is told to stop and close its connection.
///
/// This `deinit` signals and nothing more (the reader's thread frees its own libcurl handles);
/// it is the only way to learn that a consumer left a `for await` loop with `break` instead
/// of a cancellation.
final class EventStreamSubscription: Sendable {
  let storage: EventStreamStorage

  init(address: DaemonAddress, since: Int64?, failuresOnly: Bool) {
    storage = EventStreamStorage(address: address, since: since, failuresOnly: failuresOnly)
  }

  deinit {
    storage.cancel()
  }
}
