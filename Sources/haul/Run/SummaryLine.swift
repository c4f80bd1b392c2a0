import HaulCore

/// The one line every run ends with on standard error.
enum SummaryLine {
  /// `haul: 498 ok, 2 skipped, 0 failed, 1.2 GiB in 14.3 s (85.1 MiB/s), 500 verified`; the
  /// last part only when some file was checked against a digest.
  static func text(_ summary: RunSummary) -> String {
    let rate = summary.seconds > 0 ? Double(summary.bytes) / summary.seconds : 0
    let prefix = summary.cancelled ? "haul: interrupted: " : "haul: "
    let verified = summary.verified > 0 ? ", \(summary.verified) verified" : ""
    return prefix
      + "\(summary.succeeded) ok, \(summary.skipped) skipped, \(summary.failed) failed, "
      + "\(Format.bytes(summary.bytes)) in \(Format.duration(summary.seconds)) "
      + "(\(Format.rate(rate)))" + verified
  }
}
