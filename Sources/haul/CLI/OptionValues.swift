import HaulCore

/// Typed readings of option values; each failure is a usage error naming the option and, for
/// anything but headers (whose values are secrets), the value.
struct OptionValues {
  let command: String

  /// A whole number in `range`: `-j 8`.
  func count(_ option: String, _ text: String, in range: ClosedRange<Int>) throws(UsageError)
    -> Int
  {
    guard let value = Int(text), range.contains(value) else {
      throw UsageError(
        "--\(option) must be a whole number from \(range.lowerBound) to \(range.upperBound), "
          + "not '\(text)'", command: command)
    }
    return value
  }

  /// `-j`'s value: a count of transfers in flight, or `auto` (the run finds its own, up
  /// to `ConcurrencyController.defaultCeiling`); returns the most in flight and whether the
  /// run chooses.
  func concurrency(_ text: String) throws(UsageError) -> (Int, automatic: Bool) {
    if text == "auto" { return (ConcurrencyController.defaultCeiling, true) }
    guard let value = Int(text), (1...4096).contains(value) else {
      throw UsageError(
        "--concurrency must be auto or a whole number from 1 to 4096, not '\(text)'",
        command: command)
    }
    return (value, false)
  }

  /// A byte count with an optional binary suffix: `8M` = 8 MiB; `K`, `M`, `G`, `T`, upper or
  /// lower case, optionally followed by `B` or `iB`.
  func size(_ option: String, _ text: String) throws(UsageError) -> Int64 {
    guard let value = OptionValues.parseSize(text) else {
      throw UsageError(
        "--\(option) must be a size such as 512K, 8M or 1G, not '\(text)'", command: command)
    }
    return value
  }

  /// A positive number of seconds, fractions allowed: `--timeout 2.5`.
  func seconds(_ option: String, _ text: String) throws(UsageError) -> Double {
    guard let value = Double(text), value.isFinite, value > 0, value <= 86_400 else {
      throw UsageError(
        "--\(option) must be a number of seconds above 0, not '\(text)'", command: command)
    }
    return value
  }

  /// A `Name: value` header, checked by the same rules as manifest headers
  /// (`HTTPField.userHeaderProblem`): a token name, no CR or LF, not a header haul owns.
  /// Error messages name the header but never its value.
  func header(_ text: String) throws(UsageError) -> HTTPField {
    guard let colon = text.firstIndex(of: ":") else {
      throw UsageError("--header must look like 'Name: value'", command: command)
    }
    let field = HTTPField(
      String(text[..<colon]), String(text[text.index(after: colon)...]).trimmingASCIIWhitespace())
    if let problem = field.userHeaderProblem {
      throw UsageError("--header: \(problem)", command: command)
    }
    return field
  }

  static func parseSize(_ text: String) -> Int64? {
    var digits = Substring(text)
    var unit = Substring("")
    while let last = digits.last, !last.isASCII || !last.isNumber {
      unit.insert(last, at: unit.startIndex)
      digits.removeLast()
    }
    guard !digits.isEmpty, let number = Int64(digits) else { return nil }
    let shift: Int64
    switch unit.lowercased() {
    case "", "b": shift = 0
    case "k", "kb", "kib": shift = 10
    case "m", "mb", "mib": shift = 20
    case "g", "gb", "gib": shift = 30
    case "t", "tb", "tib": shift = 40
    default: return nil
    }
    let (value, overflow) = number.multipliedReportingOverflow(by: 1 << shift)
    return overflow ? nil : value
  }
}
