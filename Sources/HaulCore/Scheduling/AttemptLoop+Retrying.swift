/// The one retry loop: every kind of attempt that is retried (an entry's, in
/// `EntryRunner.run`; a listing's request, in `ListingClient.fetch`) goes through it, so the
/// back-off, `Retry-After`, the mirrors and what cancellation does are carried out once.
/// What to try and what to tell are the caller's closures; what comes next is `failed`'s.
extension AttemptLoop {
  /// One attempt as `retry` makes it: its result, and the attempts the entry has made in all
  /// once it is over (an attempt may count more than one: a fetch from zero, a 401's re-send).
  struct Made<Value> {
    var result: Result<Value, AttemptFailure>
    var attempts: Int
  }

  /// Makes attempts until one succeeds or the loop gives up, and returns the last one's
  /// result. `attempt(source, number)` makes attempt `number` (over all sources) on
  /// `source`; after a failure `excused` says whether an outage excuses it, `retrying`
  /// announces the next attempt, and the back-off is waited out here. `first`: the first
  /// attempt was made elsewhere and failed so. Cancellation ends the loop with
  /// `Scheduler.cancelledError`: a failure while `cancelled()` says so (an entry's loop asks
  /// its run's machine; by default, the task), or a back-off cut short (the task cancelled,
  /// as the run's group cancels an entry's). `jitter` spreads the back-off (a number in
  /// 0..<1).
  mutating func retry<Value>(
    after first: AttemptFailure? = nil,
    attempt: (_ source: Int, _ number: Int) async -> Made<Value>,
    excused: (AttemptFailure, _ source: Int) async -> Bool = { _, _ in false },
    retrying: (_ number: Int, _ code: TransferError.Code, _ delay: Double) -> Void = { _, _, _ in },
    cancelled: () -> Bool = { Task.isCancelled },
    jitter: () -> Double = { Double.random(in: 0..<1) }
  ) async -> Result<Value, AttemptFailure> {
    var pending = first
    while true {
      var failure: AttemptFailure
      if let value = pending {
        pending = nil
        failure = value
      } else {
        let made = await attempt(source, attempts)
        refetched(upTo: made.attempts)
        switch made.result {
        case .success: return made.result
        case .failure(let value): failure = value
        }
      }
      if cancelled() { failure = AttemptFailure(error: Scheduler.cancelledError) }
      let excuse = failure.error.code == .connection ? await excused(failure, source) : false
      let next = self.failed(
        failure.error.code, transient: failure.transient, retryAfter: failure.retryAfter,
        excused: excuse, jitter: jitter())
      guard case .attempt(_, let number, let delay) = next else { return .failure(failure) }
      retrying(number, failure.error.code, delay)
      if delay > 0 {
        do {
          try await Task.sleep(for: .seconds(delay))
        } catch {
          return .failure(AttemptFailure(error: Scheduler.cancelledError))
        }
      }
    }
  }
}
