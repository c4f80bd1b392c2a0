import HaulCore

/// What the progress displays show, kept up to date from the scheduler's events.
///
/// Counts of finished entries come from the `finished` events themselves, so the display
/// never lags behind them; bytes, the entries in flight and the clock come from the sampled
/// `progress` snapshots.
struct ProgressState {
  var total: Int
  var succeeded = 0
  var skipped = 0
  var failed = 0
  var bytes: Int64 = 0
  /// Bytes of the run accounted for (finished files, resumed prefixes): against `expectedBytes`.
  var completedBytes: Int64 = 0
  var expectedBytes: Int64?
  var elapsed: Double = 0
  var active: [ProgressSnapshot.Active] = []
  private(set) var rate = RateMeter()

  init(total: Int, expectedBytes: Int64?) {
    self.total = total
    self.expectedBytes = expectedBytes
  }

  var finished: Int { succeeded + skipped + failed }

  mutating func apply(_ event: TransferEvent) {
    switch event {
    case .started, .retry:
      break
    case .progress(let snapshot):
      total = max(total, snapshot.total)
      bytes = snapshot.bytes
      completedBytes = snapshot.completedBytes
      if let expected = snapshot.expectedBytes { expectedBytes = expected }
      elapsed = snapshot.elapsed
      active = snapshot.active.sorted { $0.entry.line < $1.entry.line }
      rate.add(time: snapshot.elapsed, bytes: snapshot.bytes)
    case .finished(let outcome):
      switch outcome.status {
      case .ok: succeeded += 1
      case .skipped: skipped += 1
      case .failed: failed += 1
      }
      active.removeAll { $0.entry.line == outcome.line }
    case .summary(let summary):
      total = summary.total
      succeeded = summary.succeeded
      skipped = summary.skipped
      failed = summary.failed
      bytes = summary.bytes
      elapsed = summary.seconds
      active = []
    }
  }

  /// How far the run is, 0...1: by bytes when the expected bytes are known, else by files.
  var fraction: Double {
    if total > 0, finished >= total { return 1 }
    if let expected = expectedBytes, expected > 0 {
      return min(1, Double(completedBytes) / Double(expected))
    }
    return total > 0 ? Double(finished) / Double(total) : 0
  }

  /// Seconds left at the current rate, when it can be estimated.
  var estimatedSecondsLeft: Double? {
    if total > 0, finished >= total { return 0 }
    let rate = rate.bytesPerSecond
    guard let expected = expectedBytes, rate > 0 else { return nil }
    return Double(max(0, expected - completedBytes)) / rate
  }
}
