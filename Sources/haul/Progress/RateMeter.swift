/// The current transfer rate, smoothed over the last few seconds: the bytes moved between
/// the oldest sample in the window and the newest, divided by the time between them.
///
/// A sliding window rather than an average since the start, so the rate follows a slowdown
/// within seconds; a window rather than the last interval, so it does not jitter.
struct RateMeter {
  /// Seconds of history the rate is taken over.
  var window: Double = 5
  private var samples: [(time: Double, bytes: Int64)] = []

  /// Records that `bytes` had been moved in total at `time` (seconds since the start).
  mutating func add(time: Double, bytes: Int64) {
    if let last = samples.last, time <= last.time { return }
    samples.append((time, bytes))
    while samples.count > 2, let first = samples.first, time - first.time > window {
      samples.removeFirst()
    }
  }

  /// Bytes per second over the window; 0 until two samples exist.
  var bytesPerSecond: Double {
    guard let first = samples.first, let last = samples.last, last.time > first.time else {
      return 0
    }
    return Double(max(0, last.bytes - first.bytes)) / (last.time - first.time)
  }
}
