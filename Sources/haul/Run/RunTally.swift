import HaulCore

/// The run's own count of finished entries, from the `finished` events: the summary when
/// the scheduler's stream ends without one (it always sends one; this is the fallback).
struct RunTally {
  var succeeded = 0
  var skipped = 0
  var failed = 0
  var bytes: Int64 = 0

  mutating func add(_ outcome: EntryOutcome) {
    switch outcome.status {
    case .ok: succeeded += 1
    case .skipped: skipped += 1
    case .failed: failed += 1
    }
    bytes += outcome.bytes
  }

  func summary(seconds: Double, transport: String, cancelled: Bool) -> RunSummary {
    RunSummary(
      total: succeeded + skipped + failed, succeeded: succeeded, skipped: skipped, failed: failed,
      bytes: bytes, seconds: seconds, transport: transport, cancelled: cancelled)
  }
}

/// The one line every run ends with on standard error.
enum SummaryLine {
  /// `haul: 498 ok, 2 skipped, 0 failed, 1.2 GiB in 14.3 s (85.1 MiB/s)`.
  static func text(_ summary: RunSummary) -> String {
    let rate = summary.seconds > 0 ? Double(summary.bytes) / summary.seconds : 0
    let prefix = summary.cancelled ? "haul: interrupted: " : "haul: "
    return prefix
      + "\(summary.succeeded) ok, \(summary.skipped) skipped, \(summary.failed) failed, "
      + "\(Format.bytes(summary.bytes)) in \(Format.duration(summary.seconds)) "
      + "(\(Format.rate(rate)))"
  }
}
