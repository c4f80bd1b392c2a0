import Foundation
import Testing

@testable import HaulCore

@Suite("--refresh: the conditional request's fields")
struct RefreshCheckTests {
  @Test func imf_fixdates_are_written_as_a_date_formatter_writes_them() {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    var generator = SystemRandomNumberGenerator()
    var seconds: [Int] = [0, 784_111_777, 951_782_400, 1_709_164_800, 4_107_542_399, -1]
    for _ in 0..<2000 { seconds.append(Int.random(in: 0..<4_102_444_800, using: &generator)) }
    for value in seconds {
      let expected = formatter.string(from: Date(timeIntervalSince1970: Double(value)))
      #expect(HTTPDate.imfFixdate(epochSeconds: value) == expected)
    }
    #expect(HTTPDate.imfFixdate(epochSeconds: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
  }

  @Test func only_entity_tags_are_recorded_or_sent() {
    for valid in ["\"abc\"", "W/\"abc\"", "\"\"", "\"5f3a-1e0\"", "\"a!#~\""] {
      #expect(RefreshCheck.isEntityTag(valid), "\(valid)")
    }
    let long = "\"" + String(repeating: "a", count: RefreshCheck.maxETagLength) + "\""
    for invalid in ["abc", "\"abc", "W/abc", "\"a\"b\"", "\"a b\"", "\"a\r\nX: y\"", "", long] {
      #expect(!RefreshCheck.isEntityTag(invalid), "\(invalid)")
    }
    #expect(RefreshCheck(etag: "\"a\nb\"", modified: 0, size: 0).etag == nil)
  }

  @Test func the_fields_are_if_none_match_and_if_modified_since() {
    let check = RefreshCheck(etag: "\"v1\"", modified: 784_111_777, size: 10)
    #expect(
      check.fields == [
        HTTPField("If-None-Match", "\"v1\""),
        HTTPField("If-Modified-Since", "Sun, 06 Nov 1994 08:49:37 GMT"),
      ])
    let byDate = RefreshCheck(etag: nil, modified: 784_111_777, size: 10)
    #expect(byDate.fields == [HTTPField("If-Modified-Since", "Sun, 06 Nov 1994 08:49:37 GMT")])
  }

  @Test func conditions_go_to_every_hop_and_own_headers_only_to_the_origin() throws {
    var request = TransferRequest(
      url: URL(string: "http://a.example/f")!, headers: [HTTPField("X-Secret", "s")])
    request.conditions = [HTTPField("If-None-Match", "\"v1\"")]
    var walk = RedirectWalk(request)
    #expect(walk.hop.headers == [HTTPField("X-Secret", "s"), HTTPField("If-None-Match", "\"v1\"")])
    #expect(walk.hop.conditions.isEmpty)
    let redirect = TransferResponse(
      head: ResponseHead(status: 302, headers: [HTTPField("Location", "http://b.example/f")]),
      bodyBytes: 0)
    #expect(try walk.follow(after: redirect))
    #expect(walk.hop.headers == [HTTPField("If-None-Match", "\"v1\"")])
  }
}
