import Foundation

/// Decides, after a failed attempt, whether to try the same source again (and when), move
/// on to the entry's next source, or give the entry up. Pure: see `RetryPolicyTests`.
package struct RetryPolicy: Sendable, Hashable {
  /// Retries per source after its first attempt (`--retries`).
  package var retries: Int
  /// The first retry's delay, in seconds; each further retry doubles it.
  package var base: Double
  /// The longest delay haul picks itself, in seconds.
  package var cap: Double
  /// The longest `Retry-After` honoured, in seconds: 10 minutes (docs/behaviour.md,
  /// "Retry").
  package var retryAfterCap: Double = 600

  package init(retries: Int, base: Double = 1, cap: Double = 60) {
    self.retries = retries
    self.base = base
    self.cap = cap
  }

  package enum Verdict: Sendable, Hashable {
    /// Try the same source again after `delay` seconds.
    case retry(delay: Double)
    /// This source has ended; try the next one (the entry fails when there is none).
    case nextSource
    /// The entry fails now: no other source can help.
    case giveUp
  }

  /// How an error code bears on retrying.
  package enum Kind: Sendable, Hashable {
    /// May succeed on another try at the same source.
    case transient
    /// This source will not give the bytes; another source may.
    case sourceEnding
    /// Local or run-wide: no source can help.
    case entryEnding
  }

  /// Classifies `code`. Transient: `connection` (the server may come back), `timeout` and
  /// `protocol` (a broken connection or a cut body), 408 (the server timed out waiting),
  /// 429 (throttled), 5xx (server trouble). Source-ending: other 4xx (the request is wrong
  /// for this server), an unfollowed 3xx, `redirect_refused` and `tls` (a rule or a
  /// certificate will not change), `size_mismatch`/`checksum_mismatch` (this source has
  /// other bytes). Entry-ending: `disk_full`, `io`, `path_refused` (local: the network is not
  /// at fault), `cancelled` and `auth` (run-wide).
  package static func kind(of code: TransferError.Code) -> Kind {
    if let status = code.httpStatus {
      return status == 408 || status == 429 || (500..<600).contains(status)
        ? .transient : .sourceEnding
    }
    switch code {
    case .connection, .timeout, .protocol: return .transient
    case .diskFull, .io, .pathRefused, .cancelled, .auth: return .entryEnding
    default: return .sourceEnding
    }
  }

  /// The verdict after attempt number `attemptOfSource` (1 for the first) at one source
  /// failed with `code`; `retryAfter` is the server's `Retry-After` in seconds, if any;
  /// `jitter` is a random number in 0..<1. `transient` makes the failure transient whatever
  /// its code: an error body's code (`ErrorBodyReason.retryable`) can make a 400 worth
  /// another try, a code that otherwise ends the source.
  package func verdict(
    for code: TransferError.Code, transient: Bool = false, attemptOfSource: Int,
    retryAfter: Double?, jitter: Double
  ) -> Verdict {
    switch transient ? .transient : Self.kind(of: code) {
    case .entryEnding: return .giveUp
    case .sourceEnding: return .nextSource
    case .transient:
      guard attemptOfSource <= retries else { return .nextSource }
      return .retry(
        delay: delay(afterAttempt: attemptOfSource, retryAfter: retryAfter, jitter: jitter))
    }
  }

  /// The delay before the retry that follows attempt `attempt`: the server's `Retry-After`
  /// when given (capped at 10 minutes), else exponential backoff with "equal jitter"
  /// (half fixed, half random) so that clients that failed together spread out.
  package func delay(afterAttempt attempt: Int, retryAfter: Double?, jitter: Double) -> Double {
    if let retryAfter { return min(max(retryAfter, 0), retryAfterCap) }
    let exponential = min(cap, base * pow(2, Double(max(attempt - 1, 0))))
    return exponential / 2 + exponential / 2 * jitter
  }

  /// Parses a `Retry-After` value: delay-seconds, or an HTTP date (relative to `now`);
  /// `nil` for anything else.
  package static func retryAfter(_ value: String?, now: Date) -> Double? {
    guard let value = value?.trimmingASCIIWhitespace(), !value.isEmpty else { return nil }
    if value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
      return Double(value.prefix(9)) ?? nil
    }
    guard let date = HTTPDate.parse(value) else { return nil }
    return max(0, date.timeIntervalSince(now))
  }
}
