import HaulCore

/// The measurements of one run of the manifest through one transport.
struct BenchRun: Sendable {
  var transport: String
  /// The `-j` value of the run (`16`, `auto`).
  var level: String
  /// The transfers allowed in flight when the run ended (what `auto` chose).
  var concurrency: Int?
  /// Connections the run opened, when the transport tells (`RunSummary.connections`).
  var connections: Int?
  /// The mean time from a request to its first answer byte (`RunSummary.meanFirstByte`).
  var firstByte: Double?
  /// 1-based round.
  var round: Int
  /// Wall-clock seconds from the scheduler's start to its summary.
  var seconds: Double
  /// Entries that ended ok, skipped, and failed.
  var succeeded: Int
  var skipped: Int
  var failed: Int
  /// Bytes moved (both directions).
  var bytes: Int64
  /// User plus system CPU seconds the process spent during the run.
  var cpuSeconds: Double
  /// Peak resident set during the run (see `ResourceUsage`).
  var peakRSSBytes: Int64
  /// Seconds each successful entry took, start to end, in no particular order.
  var latencies: [Double]
  /// The first failure's message, if any entry failed.
  var firstFailure: String?

  /// Counts one finished entry.
  mutating func add(_ outcome: EntryOutcome) {
    bytes += outcome.bytes
    switch outcome.status {
    case .ok:
      succeeded += 1
      latencies.append(outcome.seconds)
    case .skipped:
      skipped += 1
    case .failed:
      failed += 1
      if firstFailure == nil {
        firstFailure = "\(outcome.path): \(outcome.error.map { "\($0)" } ?? "failed")"
      }
    }
  }

  /// Whether every entry was transferred: each run goes into a fresh folder, so an entry
  /// skipped there moved nothing and measured nothing, and a run of skips is no success.
  var succeededAll: Bool { failed == 0 && skipped == 0 }

  var filesPerSecond: Double { seconds > 0 ? Double(succeeded) / seconds : 0 }
  var megabytesPerSecond: Double { seconds > 0 ? Double(bytes) / seconds / 1e6 : 0 }
  var cpuSecondsPerGiB: Double? {
    bytes > 0 ? cpuSeconds / (Double(bytes) / Double(1 << 30)) : nil
  }
  var cpuSecondsPer1000Files: Double? {
    succeeded > 0 ? cpuSeconds / (Double(succeeded) / 1000) : nil
  }
  var latencyP50: Double? { Percentile.of(latencies, 0.50) }
  var latencyP99: Double? { Percentile.of(latencies, 0.99) }
}

/// Nearest-rank percentiles and medians.
enum Percentile {
  /// The `fraction` (0...1) percentile of `values` by nearest rank; `nil` when empty.
  static func of(_ values: [Double], _ fraction: Double) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    let rank = Int((fraction * Double(sorted.count)).rounded(.up))
    return sorted[min(max(rank, 1), sorted.count) - 1]
  }

  /// The median of `values` (the mean of the middle two for an even count); `nil` when empty.
  static func median(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
  }
}
