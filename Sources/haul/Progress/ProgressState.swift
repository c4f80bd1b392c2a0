import HaulCore

/// What the progress displays show, kept up to date from the scheduler's events.
///
/// Counts of finished entries come from the `finished` events themselves, so the display
/// never lags behind them; bytes, the entries in flight and the clock come from the sampled
/// `progress` snapshots.
///
/// Progress is by bytes over the sizes known: those the manifest gives, those folder
/// listings give (`ProgressSnapshot.listedBytes`), and those learned from responses as
/// transfers start (`ProgressSnapshot.learnedBytes`); `unknownSizes` counts the entries
/// whose size is still unknown.
struct ProgressState {
  var total: Int
  var succeeded = 0
  var skipped = 0
  var failed = 0
  var bytes: Int64 = 0
  /// Bytes of the run accounted for (finished files, resumed prefixes): against `expectedBytes`.
  var completedBytes: Int64 = 0
  /// The sum of the sizes the manifest gives.
  var manifestBytes: Int64
  /// Entries whose manifest line gives no size.
  var entriesWithoutSize: Int
  /// Sizes learned for those entries so far, and how many they are.
  var learnedBytes: Int64 = 0
  var learnedEntries = 0
  /// Sizes the folder listings gave, and the entries without a size they added (net of the
  /// folder entries they replaced).
  var listedBytes: Int64 = 0
  var listedWithoutSize = 0
  var elapsed: Double = 0
  var active: [ProgressSnapshot.Active] = []
  private(set) var rate = RateMeter()

  init(total: Int, manifestBytes: Int64, entriesWithoutSize: Int) {
    self.total = total
    self.manifestBytes = manifestBytes
    self.entriesWithoutSize = entriesWithoutSize
  }

  /// The bytes of every size known so far.
  var expectedBytes: Int64 {
    let (sum, overflow) = manifestBytes.addingReportingOverflow(learnedBytes)
    let (all, further) = sum.addingReportingOverflow(listedBytes)
    return overflow || further ? .max : all
  }

  /// Entries whose size is not known yet (neither in the manifest, nor in a listing, nor
  /// from a response).
  var unknownSizes: Int { max(0, entriesWithoutSize + listedWithoutSize - learnedEntries) }

  var finished: Int { succeeded + skipped + failed }

  mutating func apply(_ event: TransferEvent) {
    switch event {
    case .started, .retry:
      break
    case .progress(let snapshot):
      total = max(total, snapshot.total)
      bytes = snapshot.bytes
      completedBytes = snapshot.completedBytes
      learnedBytes = snapshot.learnedBytes
      learnedEntries = snapshot.learnedEntries
      listedBytes = snapshot.listedBytes
      listedWithoutSize = snapshot.listedWithoutSize
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

  /// How far the run is, 0...1: by bytes over the sizes known, or by files while no byte
  /// is known to be expected.
  var fraction: Double {
    if total > 0, finished >= total { return 1 }
    let expected = expectedBytes
    if expected > 0 { return min(1, Double(completedBytes) / Double(expected)) }
    return total > 0 ? Double(finished) / Double(total) : 0
  }

  /// Seconds left at the current rate for the bytes known, when it can be estimated.
  var estimatedSecondsLeft: Double? {
    if total > 0, finished >= total { return 0 }
    let rate = rate.bytesPerSecond
    let expected = expectedBytes
    guard expected > 0, rate > 0 else { return nil }
    return Double(max(0, expected - completedBytes)) / rate
  }
}
