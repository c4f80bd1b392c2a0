/// How numbers look to a person: binary byte units, rates, durations.
///
/// Built without `String(format:)`: its first call makes the Swift runtime look up the
/// `CVarArg` conformance of each argument type, a scan of every conformance in the binary,
/// and every run prints at least one figure in its summary.
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
    return fixed(value, digits: value < 10 ? 2 : value < 100 ? 1 : 0) + " " + units[unit]
  }

  /// `85.1 MiB/s`.
  static func rate(_ bytesPerSecond: Double) -> String {
    guard bytesPerSecond.isFinite, bytesPerSecond > 0 else { return "0 B/s" }
    return bytes(Int64(bytesPerSecond)) + "/s"
  }

  /// `0.4 s`, `14.3 s`, `2 min 05 s`, `1 h 02 min`: a run's length for the summary.
  static func duration(_ seconds: Double) -> String {
    guard seconds.isFinite, seconds >= 0 else { return "0 s" }
    if seconds < 60 { return fixed(seconds, digits: 1) + " s" }
    let whole = Int(seconds.rounded())
    if whole < 3600 { return "\(whole / 60) min \(twoDigits(whole % 60)) s" }
    return "\(whole / 3600) h \(twoDigits((whole % 3600) / 60)) min"
  }

  /// `0:27`, `12:03`, `1:02:03`: an estimate of time left, or `--:--` when unknown.
  static func clock(_ seconds: Double?) -> String {
    guard let seconds, seconds.isFinite, seconds >= 0, seconds < 360_000 else { return "--:--" }
    let whole = Int(seconds.rounded(.up))
    if whole < 3600 { return "\(whole / 60):\(twoDigits(whole % 60))" }
    return "\(whole / 3600):\(twoDigits((whole % 3600) / 60)):\(twoDigits(whole % 60))"
  }

  /// `42%`, from a fraction in 0...1.
  static func percent(_ fraction: Double) -> String {
    "\(Int((min(max(fraction, 0), 1) * 100).rounded(.down)))%"
  }

  /// A non-negative `value` rounded to `digits` (0, 1 or 2) decimals: `12.35` → `12.4`.
  static func fixed(_ value: Double, digits: Int) -> String {
    let scale = digits == 2 ? 100 : digits == 1 ? 10 : 1
    let scaled = Int((max(0, value) * Double(scale)).rounded())
    guard digits > 0 else { return String(scaled) }
    let fraction = String(scaled % scale)
    return "\(scaled / scale)." + String(repeating: "0", count: digits - fraction.count) + fraction
  }

  /// `7` → `07`: minutes and seconds in a clock.
  private static func twoDigits(_ value: Int) -> String {
    value < 10 ? "0\(value)" : String(value)
  }
}
