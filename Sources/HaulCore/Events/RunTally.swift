/// Counts of a run's finished entries, for progress and the summary.
public struct RunTally: Sendable {
  public var succeeded = 0
  public var skipped = 0
  public var failed = 0
  /// Bytes moved in this run.
  public var bytes: Int64 = 0
  /// Bytes of finished entries' files (see `ProgressSnapshot.completedBytes`).
  public var completedBytes: Int64 = 0
  /// Of `completedBytes`, those of entries whose manifest line gives no size, and how many
  /// such entries ended (see `ProgressSnapshot.learnedBytes`).
  public var learnedBytes: Int64 = 0
  public var learnedEntries = 0
  /// Entries that did not fail and whose file matched at least one expected digest.
  public var verified = 0

  public init() {}

  public var total: Int { succeeded + skipped + failed }

  /// Counts one finished entry.
  public mutating func add(_ outcome: EntryOutcome) {
    switch outcome.status {
    case .ok: succeeded += 1
    case .skipped: skipped += 1
    case .failed: failed += 1
    }
    bytes += outcome.bytes
    if outcome.status != .failed, !outcome.verified.isEmpty { verified += 1 }
  }

  /// The report's summary for these counts.
  public func summary(seconds: Double, transport: String, cancelled: Bool) -> RunSummary {
    RunSummary(
      total: total, succeeded: succeeded, skipped: skipped, failed: failed, bytes: bytes,
      seconds: seconds, transport: transport, cancelled: cancelled, verified: verified)
  }
}
