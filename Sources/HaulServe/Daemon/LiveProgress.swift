import HaulCore

/// What the daemon knows of a running job between the journal's records: the run's latest
/// progress sample and the rate over the last seconds, for the job's `rate` and `eta` and
/// the `progress` events.
struct LiveProgress: Sendable {
  var snapshot: ProgressSnapshot?
  /// Bytes the job had moved before this run.
  var bytesBefore: Int64 = 0
  /// (time, bytes moved in this run) samples of the last `window` seconds.
  private var samples: [(time: Double, bytes: Int64)] = []
  /// The span the rate is measured over: long enough to smooth small files' steps, short
  /// enough to follow a change of link within seconds.
  static let window = 5.0

  init(bytesBefore: Int64) {
    self.bytesBefore = bytesBefore
  }

  mutating func record(_ snapshot: ProgressSnapshot, at time: Double) {
    self.snapshot = snapshot
    samples.append((time, snapshot.bytes))
    while let first = samples.first, time - first.time > Self.window { samples.removeFirst() }
  }

  /// Bytes per second over the window; 0 before two samples.
  var rate: Double {
    guard let first = samples.first, let last = samples.last, last.time > first.time else {
      return 0
    }
    return Double(last.bytes - first.bytes) / (last.time - first.time)
  }

  /// Seconds left at the current rate, when the run's expected bytes are known.
  var eta: Double? {
    guard let snapshot, let expected = snapshot.expectedBytes, rate > 0 else { return nil }
    return max(0, Double(expected - snapshot.completedBytes) / rate)
  }
}
