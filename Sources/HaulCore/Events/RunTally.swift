/// Counts of a run's finished entries, for progress and the summary.
package struct RunTally: Sendable {
  package var succeeded = 0
  package var skipped = 0
  package var failed = 0
  /// Bytes moved in this run.
  package var bytes: Int64 = 0
  /// Bytes of finished entries' files (see `ProgressSnapshot.completedBytes`).
  package var completedBytes: Int64 = 0
  /// Of `completedBytes`, those of entries whose manifest line gives no size, and how many
  /// such entries ended (see `ProgressSnapshot.learnedBytes`).
  package var learnedBytes: Int64 = 0
  package var learnedEntries = 0
  /// Entries that did not fail and whose file matched at least one expected digest.
  package var verified = 0
  /// Exchanges that answered with their times, the sum of their times to the first byte,
  /// and the connections they opened (`nil` once one could not tell).
  package var timedExchanges = 0
  package var firstByteSeconds = 0.0
  package var connectionsOpened: Int? = 0

  package init() {}

  package var total: Int { succeeded + skipped + failed }

  /// Counts one finished entry.
  package mutating func add(_ outcome: EntryOutcome) {
    switch outcome.status {
    case .ok: succeeded += 1
    case .skipped: skipped += 1
    case .failed: failed += 1
    }
    bytes += outcome.bytes
    if outcome.status != .failed, !outcome.verified.isEmpty { verified += 1 }
  }

  /// Counts one exchange's times.
  package mutating func note(_ timing: TransferTiming) {
    timedExchanges += 1
    firstByteSeconds += timing.firstByte
    if let opened = timing.openedConnection {
      connectionsOpened? += opened ? 1 : 0
    } else {
      connectionsOpened = nil
    }
  }

  /// The report's summary for these counts.
  package func summary(seconds: Double, transport: String, cancelled: Bool) -> RunSummary {
    var summary = RunSummary(
      total: total, succeeded: succeeded, skipped: skipped, failed: failed, bytes: bytes,
      seconds: seconds, transport: transport, cancelled: cancelled, verified: verified)
    if timedExchanges > 0 {
      summary.meanFirstByte = firstByteSeconds / Double(timedExchanges)
      summary.connections = connectionsOpened
    }
    return summary
  }
}
