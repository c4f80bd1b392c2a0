import Synchronization

/// One byte budget shared by every transfer (`--max-rate`): transports charge each chunk
/// they move and pause the transfer for the delay it returns, so the run as a whole stays at
/// the rate however many transfers are in flight.
///
/// The bucket may go into debt: a chunk is always charged in full, and the delay is what it
/// takes to pay the debt back. Thread-safe; cheap enough to call per chunk.
package final class TokenBucket: Sendable {
  /// Bytes per second.
  package let rate: Double
  /// The most bytes that can go at once after a quiet spell.
  package let burst: Double
  private let state: Mutex<(tokens: Double, last: Double)>

  /// - Parameters:
  ///   - rate: bytes per second, > 0.
  ///   - burst: bytes allowed at once; defaults to a tenth of a second's worth (at least
  ///     64 KiB), which keeps the rate within a few percent over a few seconds.
  package init(rate: Double, burst: Double? = nil, now: Double = 0) {
    self.rate = rate
    self.burst = burst ?? max(rate / 10, 64 * 1024)
    self.state = Mutex((self.burst, now))
  }

  /// Charges `bytes` moved at time `now` (seconds on a monotonic clock); returns how long the
  /// caller should pause before moving more (0 when within budget).
  package func charge(_ bytes: Int, now: Double) -> Double {
    state.withLock { state in
      state.tokens = min(burst, state.tokens + (now - state.last) * rate)
      state.last = now
      state.tokens -= Double(bytes)
      return state.tokens >= 0 ? 0 : -state.tokens / rate
    }
  }

  /// Seconds on the monotonic clock the transports use with `charge`.
  package static func now() -> Double {
    (ContinuousClock.now - start).inSeconds
  }

  private static let start = ContinuousClock.now
}
