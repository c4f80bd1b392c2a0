/// The attempt loop of one entry, as a value: which source the next attempt goes to, after
/// what delay, and when the entry has failed for good. `EntryRunner` carries out what it
/// returns (waits, attempts, `retry` events); see `AttemptLoopTests`.
///
/// The rules (`RetryPolicy` decides each failure): each source gets up to `1 + retries`
/// attempts; a failure that ends a source moves on to the next one at once; one that ends
/// the entry stops everything. An attempt excused by an outage (the host came back after
/// haul waited for it) is made again without using up a retry, though it counts as an
/// attempt; so is the fetch from zero of a resumed file that failed its check, which the
/// attempt makes within itself (`refetched`).
struct AttemptLoop: Sendable {
  let sources: Int
  let policy: RetryPolicy
  /// The source of the attempt in progress (an index into the entry's sources).
  private(set) var source = 0
  /// Attempts made on `source` so far, the one in progress included.
  private(set) var attemptOfSource = 0
  /// Attempts made over all sources, the one in progress included.
  private(set) var attempts = 0

  init(sources: Int, policy: RetryPolicy) {
    self.sources = sources
    self.policy = policy
  }

  /// What to do after a failed attempt.
  enum Next: Sendable, Hashable {
    /// Make attempt number `attempt` (over all sources) on `source` after `delay` seconds,
    /// announcing it with a `retry` event.
    case attempt(source: Int, attempt: Int, delay: Double)
    /// The entry has failed.
    case giveUp
  }

  /// Starts the first attempt, on the first source.
  mutating func begin() {
    source = 0
    attemptOfSource = 1
    attempts = 1
  }

  /// The attempt in progress fetched a resumed file once more from the first byte
  /// (`AttemptMachine`), and the entry has made `total` attempts: they count, on the same
  /// source, and use up no retry.
  mutating func refetched(upTo total: Int) {
    attempts = max(attempts, total)
  }

  /// The attempt in progress failed with `code`. `transient`: retry it whatever the code
  /// (an error body's retryable code). `excused`: the host was down and came back (the attempt does
  /// not use up a retry). `jitter` in 0..<1 spreads the back-off.
  mutating func failed(
    _ code: TransferError.Code, transient: Bool = false, retryAfter: Double?, excused: Bool,
    jitter: Double
  ) -> Next {
    if excused {
      attempts += 1
      return .attempt(source: source, attempt: attempts, delay: 0)
    }
    switch policy.verdict(
      for: code, transient: transient, attemptOfSource: attemptOfSource,
      retryAfter: retryAfter, jitter: jitter)
    {
    case .giveUp:
      return .giveUp
    case .nextSource:
      guard source + 1 < sources else { return .giveUp }
      source += 1
      attemptOfSource = 1
      attempts += 1
      return .attempt(source: source, attempt: attempts, delay: 0)
    case .retry(let delay):
      attemptOfSource += 1
      attempts += 1
      return .attempt(source: source, attempt: attempts, delay: delay)
    }
  }
}
