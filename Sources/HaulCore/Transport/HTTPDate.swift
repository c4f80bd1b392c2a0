import Foundation

/// HTTP dates (RFC 9110, section 5.6.7): the IMF-fixdate of today's servers and the two
/// obsolete forms (RFC 850, asctime) a recipient must still accept. One parser for every
/// field that holds a date: `Retry-After`, `Last-Modified`.
public enum HTTPDate {
  private static let formats = [
    "EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy",
  ]

  /// The date `text` holds, or `nil` when it is not an HTTP date.
  public static func parse(_ text: String) -> Date? {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    for format in formats {
      formatter.dateFormat = format
      if let date = formatter.date(from: text) { return date }
    }
    return nil
  }

  /// The date `text` holds (surrounding whitespace ignored) in whole seconds since 1970,
  /// or `nil` when it is not an HTTP date.
  public static func epochSeconds(_ text: String) -> Int? {
    parse(text.trimmingASCIIWhitespace()).map { Int($0.timeIntervalSince1970.rounded(.down)) }
  }
}
