import Foundation
import Testing

@testable import HaulCore

/// Parses `text` as one JSON object.
func jsonObject(_ text: String) throws -> [String: Any] {
  let value = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [])
  return try #require(value as? [String: Any])
}

/// The keys of a JSON object in the order they appear in its text.
func keyOrder(_ text: String, _ keys: [String]) -> [String] {
  keys.compactMap { key in text.range(of: "\"\(key)\":").map { (key, $0.lowerBound) } }
    .sorted { $0.1 < $1.1 }.map(\.0)
}

let sampleOutcome = EntryOutcome(
  line: 7, text: #"{"url":"https://u:secret@example.com/a.bin"}"#,
  url: "https://u:secret@example.com/a.bin?x=1", path: "dir/a.bin", operation: .download,
  status: .failed, bytes: 1234, attempts: 3, seconds: 1.23456, sha256: nil,
  error: TransferError(.http(503), "server answered 503 \"Service Unavailable\""))

@Suite("Report JSON: field names, escaping, no secrets")
struct ReportingJSONTests {
  @Test func transfer_object_holds_the_spec_fields_in_order() throws {
    let text = ReportJSON.transfer(sampleOutcome)
    let object = try jsonObject(text)
    #expect(object["line"] as? Int == 7)
    #expect(object["url"] as? String == "https://example.com/a.bin?x=1")
    #expect(object["path"] as? String == "dir/a.bin")
    #expect(object["op"] as? String == "download")
    #expect(object["status"] as? String == "failed")
    #expect(object["bytes"] as? Int == 1234)
    #expect(object["attempts"] as? Int == 3)
    #expect(object["seconds"] as? Double == 1.235)
    #expect(object["sha256"] == nil)
    let error = try #require(object["error"] as? [String: Any])
    #expect(error["code"] as? String == "http_503")
    #expect(error["message"] as? String == "server answered 503 \"Service Unavailable\"")
    let order = ["line", "url", "path", "op", "status", "bytes", "attempts", "seconds", "error"]
    #expect(keyOrder(text, order) == order)
  }

  @Test func a_transfer_appended_to_a_line_is_the_same_object_after_what_was_there() throws {
    var outcome = sampleOutcome
    outcome.status = .skipped
    outcome.error = nil
    outcome.seconds = 0
    outcome.sha256 = String(repeating: "ab", count: 32)
    outcome.digests = [.md5: String(repeating: "cd", count: 16)]
    outcome.verified = ["manifest:sha256", "manifest:md5"]
    var line = Array("before".utf8)
    ReportJSON.appendTransfer(outcome, to: &line)
    #expect(String(decoding: line, as: UTF8.self) == "before" + ReportJSON.transfer(outcome))
    let object = try jsonObject(ReportJSON.transfer(outcome))
    #expect(object["seconds"] as? Int == 0)
    let digests = try #require(object["digests"] as? [String: String])
    #expect(
      digests == [
        "sha256": String(repeating: "ab", count: 32), "md5": String(repeating: "cd", count: 16),
      ])
    #expect(object["verified"] as? [String] == ["manifest:sha256", "manifest:md5"])
  }

  @Test func whole_numbers_are_written_in_decimal() {
    var object = JSONObject()
    for value: Int64 in [0, 7, 10, 99, 1_000, -1, -45, 1_234_567_890_123, .max, .min] {
      object.add("n", value)
    }
    object.add("i", Int.max)
    let expected =
      ["0", "7", "10", "99", "1000", "-1", "-45", "1234567890123", "\(Int64.max)", "\(Int64.min)"]
      .map { "\"n\":\($0)" } + ["\"i\":\(Int.max)"]
    #expect(object.json == "{" + expected.joined(separator: ",") + "}")
  }

  @Test func transfer_object_never_holds_url_userinfo() {
    let text = ReportJSON.transfer(sampleOutcome)
    #expect(!text.contains("secret"))
    #expect(!text.contains("u:"))
  }

  @Test func a_successful_transfer_has_sha256_and_no_error() throws {
    var outcome = sampleOutcome
    outcome.status = .ok
    outcome.error = nil
    outcome.sha256 = String(repeating: "ab", count: 32)
    let object = try jsonObject(ReportJSON.transfer(outcome))
    #expect(object["sha256"] as? String == String(repeating: "ab", count: 32))
    #expect(object["error"] == nil)
    #expect(object["status"] as? String == "ok")
  }

  @Test func summary_holds_the_spec_fields_and_counts_add_up() throws {
    let summary = RunSummary(
      total: 10, succeeded: 7, skipped: 2, failed: 1, bytes: 1 << 33, seconds: 14.25,
      transport: "curl", cancelled: false)
    let object = try jsonObject(ReportJSON.summary(summary))
    #expect(object["total"] as? Int == 10)
    #expect(object["succeeded"] as? Int == 7)
    #expect(object["skipped"] as? Int == 2)
    #expect(object["failed"] as? Int == 1)
    #expect(object["bytes"] as? Int64 == 1 << 33)
    #expect(object["seconds"] as? Double == 14.25)
    #expect(object["transport"] as? String == "curl")
    #expect(object["cancelled"] as? Bool == false)
  }

  @Test(arguments: [
    ("plain", #""plain""#),
    ("quote \" and \\ backslash", #""quote \" and \\ backslash""#),
    ("line\nbreak\r\ttab", #""line\nbreak\r\ttab""#),
    ("bell\u{07} nul\u{00} del\u{7F}", #""bell\u0007 nul\u0000 del\u007f""#),
    ("ünïcødé ✓ 日本", #""ünïcødé ✓ 日本""#),
    ("sep\u{2028}", #""sep\u2028""#),
    ("para\u{2029}end", #""para\u2029end""#),
    ("arrows \u{2192}\u{2014} and \u{20AC}", "\"arrows \u{2192}\u{2014} and \u{20AC}\""),
    ("\u{1F}\u{2028}\"", #""\u001f\u2028\"""#),
  ])
  func strings_are_escaped_as_json_asks(input: String, expected: String) throws {
    #expect(JSONObject.quoted(input) == expected)
    let decoded = try JSONSerialization.jsonObject(
      with: Data("[\(expected)]".utf8), options: [])
    #expect((decoded as? [String])?.first == input)
  }

  @Test func a_byte_to_escape_is_found_wherever_it_stands_in_a_long_string() throws {
    for special in ["\"", "\\", "\n", "\u{1F}", "\u{7F}", "\u{2028}", "é"] {
      for position in 0..<20 {
        let input =
          String(repeating: "a", count: position) + special
          + String(repeating: "b", count: 19 - position)
        let quoted = JSONObject.quoted(input)
        let decoded = try JSONSerialization.jsonObject(
          with: Data("[\(quoted)]".utf8), options: [])
        #expect((decoded as? [String])?.first == input)
        #expect(JSONObject.quoted(input) != "\"\(input)\"" || special == "é")
      }
    }
    let plain = "https://example.com/a/long/path/0123456789.bin?x=1"
    #expect(JSONObject.quoted(plain) == "\"\(plain)\"")
  }

  @Test(arguments: [
    (0.0, "0"), (1.0, "1"), (1.5, "1.5"), (0.0004, "0"), (0.0006, "0.001"), (12.3456, "12.346"),
    (-2.25, "-2.25"), (Double.nan, "0"), (Double.infinity, "0"),
  ])
  func seconds_are_json_numbers_rounded_to_milliseconds(value: Double, expected: String) {
    #expect(JSONObject.number(value) == expected)
  }

  @Test(arguments: [
    ("https://user:pw@example.com/a", "https://example.com/a"),
    ("http://user@example.com:8080/a?b=c@d", "http://example.com:8080/a?b=c@d"),
    ("https://example.com/a@b", "https://example.com/a@b"),
    ("https://a:b@c@example.com", "https://example.com"),
    ("not a url", "not a url"),
    ("http::/x://u:p@host/p", "http::/x://host/p"),
    ("https://host#frag@x", "https://host#frag@x"),
  ])
  func urls_lose_their_userinfo(input: String, expected: String) {
    #expect(RedactedURL.string(input) == expected)
  }

  @Test(arguments: [
    ("https://user:pw@example.com/a", "https://example.com/a"),
    ("http://user@[::1]:8080/a%20b?q=1", "http://[::1]:8080/a%20b?q=1"),
    ("https://example.com/plain", "https://example.com/plain"),
  ])
  func a_parsed_url_loses_its_userinfo_the_same_way(input: String, expected: String) throws {
    let url = try #require(URL(string: input))
    #expect(RedactedURL.string(url) == expected)
  }

  @Test func an_outcome_built_with_userinfo_keeps_none() {
    #expect(sampleOutcome.url == "https://example.com/a.bin?x=1")
  }
}
