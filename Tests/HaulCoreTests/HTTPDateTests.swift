import Foundation
import Testing

@testable import HaulCore

@Suite("HTTP dates: the fast IMF-fixdate reader agrees with a DateFormatter")
struct HTTPDateTests {
  @Test func fixdates_read_from_bytes_match_the_formatter_over_many_dates() {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    var generator = SystemRandomNumberGenerator()
    var seconds: [Int] = [0, 951_782_400, 4_107_542_399, 1_709_164_800]
    for _ in 0..<2000 { seconds.append(Int.random(in: 0..<4_102_444_800, using: &generator)) }
    for value in seconds {
      let text = formatter.string(from: Date(timeIntervalSince1970: Double(value)))
      #expect(HTTPDate.fixdateSeconds(text) == value, "\(text)")
    }
  }

  @Test func text_that_is_not_a_fixdate_is_left_to_the_formatter() {
    #expect(HTTPDate.fixdateSeconds("Sunday, 06-Nov-94 08:49:37 GMT") == nil)
    #expect(HTTPDate.fixdateSeconds("Sun Nov  6 08:49:37 1994") == nil)
    #expect(HTTPDate.fixdateSeconds("Sun, 06 Foo 1994 08:49:37 GMT") == nil)
    #expect(HTTPDate.fixdateSeconds("Sun, 36 Nov 1994 08:49:37 GMT") == nil)
    #expect(HTTPDate.epochSeconds("Sunday, 06-Nov-94 08:49:37 GMT") == 784_111_777)
  }
}
