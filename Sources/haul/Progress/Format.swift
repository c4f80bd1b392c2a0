import Foundation

/// How numbers look to a person: binary byte units, rates, durations.
enum Format {
  /// `512 B`, `1.5 KiB`, `12.3 MiB`, `1.2 GiB`.
  static func bytes(_ count: Int64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
    var value = Double(max(0, count))
    var unit = 0
    while value >= 1024, unit < units.count - 1 {
      value /= 1024
      unit += 1
    }
    if unit == 0 { return "\(max(0, count)) B" }
    return String(
      format: value < 10 ? "%.2f %@" : value < 100 ? "%.1f %@" : "%.0f %@",
      value, units[unit])
  }

  /// `85.1 MiB/s`.
  static func rate(_ bytesPerSecond: Double) -> String {
    guard bytesPerSecond.isFinite, bytesPerSecond > 0 else { return "0 B/s" }
    return bytes(Int64(bytesPerSecond)) + "/s"
  }

  /// `0.4 s`, `14.3 s`, `2 min 05 s`, `1 h 02 min`: a run's length for the summary.
  static func duration(_ seconds: Double) -> String {
    guard seconds.isFinite, seconds >= 0 else { return "0 s" }
    if seconds < 60 { return String(format: "%.1f s", seconds) }
    let whole = Int(seconds.rounded())
    if whole < 3600 { return String(format: "%d min %02d s", whole / 60, whole % 60) }
    return String(format: "%d h %02d min", whole / 3600, (whole % 3600) / 60)
  }

  /// `0:27`, `12:03`, `1:02:03`: an estimate of time left, or `--:--` when unknown.
  static func clock(_ seconds: Double?) -> String {
    guard let seconds, seconds.isFinite, seconds >= 0, seconds < 360_000 else { return "--:--" }
    let whole = Int(seconds.rounded(.up))
    if whole < 3600 { return String(format: "%d:%02d", whole / 60, whole % 60) }
    return String(format: "%d:%02d:%02d", whole / 3600, (whole % 3600) / 60, whole % 60)
  }

  /// `42%`, from a fraction in 0...1.
  static func percent(_ fraction: Double) -> String {
    "\(Int((min(max(fraction, 0), 1) * 100).rounded(.down)))%"
  }
}
