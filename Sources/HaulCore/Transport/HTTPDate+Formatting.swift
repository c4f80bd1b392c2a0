extension HTTPDate {
  /// The IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) of `seconds` since 1970: the form a
  /// request's `If-Modified-Since` takes. Built from its digits, without a `DateFormatter`.
  public static func imfFixdate(epochSeconds seconds: Int) -> String {
    let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    let time = seconds - days * 86_400
    let (year, month, day) = civil(daysSince1970: days)
    // 1970-01-01 was a Thursday.
    let weekday = ((days % 7) + 11) % 7
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
    return "\(weekdayNames[weekday]), \(two(day)) \(fixdateMonths[month - 1]) \(yearText) "
      + "\(two(time / 3_600)):\(two(time % 3_600 / 60)):\(two(time % 60)) GMT"
  }

  private static let weekdayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
  private static let fixdateMonths = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
  ]

  /// The year, month (1–12) and day of a count of days since 1970-01-01 in the proleptic
  /// Gregorian calendar (H. Hinnant's `civil_from_days`).
  private static func civil(daysSince1970 days: Int) -> (Int, Int, Int) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let shifted = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * shifted + 2) / 5 + 1
    let month = shifted < 10 ? shifted + 3 : shifted - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }
}
