internal import CCurl
import HaulCore

/// Holds every exchange of one transport to `--max-rate`: the callbacks charge each chunk
/// to a shared `TokenBucket`, and when the bucket is in debt they pause their exchange
/// (`CURL_WRITEFUNC_PAUSE`, `CURL_READFUNC_PAUSE`) instead of blocking the loop thread.
/// The loop resumes paused exchanges (`curl_easy_pause`) once their delay has passed.
///
/// Threading: made by the loop on its thread, which owns it like the exchanges it pauses;
/// `paused` is `@LoopBound`.
final class CurlRateLimiter {
  private let bucket: TokenBucket
  /// Paused exchanges and when each may move again (`TokenBucket.now()` seconds). Walked on
  /// each loop turn; it holds at most the exchanges in flight, and only while the cap bites.
  @LoopBound private var paused: [ObjectIdentifier: (exchange: CurlExchange, resumeAt: Double)] =
    [:]

  /// Debts worth less than this much time are carried (the bucket pays them back later)
  /// rather than paused for: a pause per 16 KiB chunk costs a loop turn each, and the
  /// turns, not the cap, would then set the rate.
  static let shortestPause = 0.01

  init(bytesPerSecond: Double) {
    bucket = TokenBucket(rate: bytesPerSecond, now: TokenBucket.now())
  }

  /// Whether `exchange` must pause before moving more bytes; if so, it is recorded with
  /// the time it may resume. Called from a data callback before it takes any bytes.
  func mustPause(_ exchange: CurlExchange) -> Bool {
    let now = TokenBucket.now()
    let delay = bucket.charge(0, now: now)
    guard delay >= Self.shortestPause else { return false }
    paused[ObjectIdentifier(exchange)] = (exchange, now + delay)
    exchange.isPaused = true
    return true
  }

  /// Charges `bytes` that an exchange has just moved.
  func charge(_ bytes: Int) {
    _ = bucket.charge(bytes, now: TokenBucket.now())
  }

  /// Resumes every paused exchange whose delay has passed.
  func resumeDue() {
    guard !paused.isEmpty else { return }
    let now = TokenBucket.now()
    for (key, entry) in paused where entry.resumeAt <= now {
      paused[key] = nil
      entry.exchange.isPaused = false
      // May call the data callbacks at once, which may pause the exchange again.
      if let easy = entry.exchange.easy { haul_easy_unpause(easy.handle) }
    }
  }

  /// Milliseconds until the next paused exchange is due (at least 1), or `nil` when none
  /// is paused.
  func millisecondsUntilNextResume() -> Int? {
    guard let next = paused.values.lazy.map(\.resumeAt).min() else { return nil }
    return max(1, Int(((next - TokenBucket.now()) * 1000).rounded(.up)))
  }

  /// Forgets an exchange that finished while paused.
  func forget(_ exchange: CurlExchange) {
    paused[ObjectIdentifier(exchange)] = nil
  }
}

@available(*, unavailable)
extension CurlRateLimiter: Sendable {}
