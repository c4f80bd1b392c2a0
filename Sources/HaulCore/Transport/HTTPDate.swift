import Foundation

/// HTTP dates (RFC 9110, section 5.6.7): the IMF-fixdate of today's servers and the two
/// obsolete forms (RFC 850, asctime) a recipient must still accept. One parser for every
/// field that holds a date: `Retry-After`, `Last-Modified`.
package enum HTTPDate {
  private static let formats = [
    "EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy",
  ]

  /// The date `text` holds, or `nil` when it is not an HTTP date.
  ///
  /// The IMF-fixdate every current server sends is read straight from its bytes, so the
  /// `Last-Modified` every download reads builds no `DateFormatter` (ICU); the obsolete forms
  /// go through a formatter.
  package static func parse(_ text: String) -> Date? {
    if let seconds = fixdateSeconds(text) { return Date(timeIntervalSince1970: Double(seconds)) }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    for format in formats {
      formatter.dateFormat = format
      if let date = formatter.date(from: text) { return date }
    }
    return nil
  }

  /// Seconds since 1970 of an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), or `nil`
  /// when `text` is not exactly one.
  static func fixdateSeconds(_ text: String) -> Int? {
    var text = text
    return text.withUTF8 { bytes -> Int? in
      guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == UInt8(ascii: " "),
        bytes[7] == UInt8(ascii: " "), bytes[11] == UInt8(ascii: " "),
        bytes[16] == UInt8(ascii: " "), bytes[19] == UInt8(ascii: ":"),
        bytes[22] == UInt8(ascii: ":"), bytes[25] == UInt8(ascii: " "),
        bytes[26] == UInt8(ascii: "G"), bytes[27] == UInt8(ascii: "M"),
        bytes[28] == UInt8(ascii: "T")
      else { return nil }
      func number(_ start: Int, _ count: Int) -> Int? {
        var value = 0
        for index in start..<(start + count) {
          let digit = Int(bytes[index]) - 0x30
          guard (0...9).contains(digit) else { return nil }
          value = value * 10 + digit
        }
        return value
      }
      let month = monthNames.withUTF8Buffer { names in
        (0..<12).first { index in
          bytes[8] == names[3 * index] && bytes[9] == names[3 * index + 1]
            && bytes[10] == names[3 * index + 2]
        }
      }
      guard let month, let day = number(5, 2), let year = number(12, 4),
        let hour = number(17, 2), let minute = number(20, 2), let second = number(23, 2),
        (1...31).contains(day), hour < 24, minute < 60, second < 61
      else { return nil }
      return daysSince1970(year: year, month: month + 1, day: day) * 86_400 + hour * 3_600
        + minute * 60 + second
    }
  }

  /// The months' names as the fixdate writes them, three bytes each.
  private static let monthNames: StaticString = "JanFebMarAprMayJunJulAugSepOctNovDec"

  /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (H. Hinnant's
  /// `days_from_civil`).
  package static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// The date `text` holds (surrounding whitespace ignored) in whole seconds since 1970,
  /// or `nil` when it is not an HTTP date.
  package static func epochSeconds(_ text: String) -> Int? {
    parse(text.trimmingASCIIWhitespace()).map { Int($0.timeIntervalSince1970.rounded(.down)) }
  }
}
