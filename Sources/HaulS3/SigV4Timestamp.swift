import Foundation
import HaulCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The moment a request is signed, in the two text forms SigV4 uses: `X-Amz-Date`
/// (`20130524T000000Z`, whose first eight characters are the scope's date) and, when the
/// request carries a `Date` header instead, an RFC 5322 date in UTC (`Fri, 24 May 2013
/// 00:00:00 -0000`, the form botocore writes).
package struct SigV4Timestamp: Sendable, Hashable {
  /// `YYYYMMDD'T'HHMMSS'Z'` in UTC.
  package let amzDate: String
  /// The `Date` header's value for the same second.
  package let httpDate: String

  /// `date`, truncated to the second, in UTC.
  package init(_ date: Date) {
    var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
    var parts = tm()
    gmtime_r(&seconds, &parts)
    let year = Int(parts.tm_year) + 1900
    let month = Int(parts.tm_mon) + 1
    let day = Int(parts.tm_mday)
    let clock = [Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec)]
    amzDate =
      Self.pad(year, 4) + Self.pad(month, 2) + Self.pad(day, 2) + "T"
      + clock.map { Self.pad($0, 2) }.joined() + "Z"
    let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    let months = [
      "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    httpDate =
      "\(weekdays[Int(parts.tm_wday)]), \(Self.pad(day, 2)) \(months[month - 1]) "
      + "\(Self.pad(year, 4)) \(clock.map { Self.pad($0, 2) }.joined(separator: ":")) -0000"
  }

  /// The scope's date, `YYYYMMDD`.
  package var scopeDate: String { String(amzDate.prefix(8)) }

  private static func pad(_ value: Int, _ width: Int) -> String {
    let digits = String(value)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
  }
}
