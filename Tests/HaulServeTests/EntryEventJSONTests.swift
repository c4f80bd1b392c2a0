import HaulCore
import Testing

@testable import HaulServe

@Suite("EntryEventJSON: the entry events' data")
struct EntryEventJSONTests {
  /// What `JSONObject` writes for the same fields, which the events carried before.
  private func reference(_ fields: [(StaticString, Any)]) -> String {
    var object = JSONObject()
    for (key, value) in fields {
      switch value {
      case let text as String: object.add(key, text)
      case let number as Int: object.add(key, number)
      case let number as Int64: object.add(key, number)
      default: Issue.record("no such field type")
      }
    }
    return object.json
  }

  @Test(arguments: ["a/b.bin", "", "quote \" back\\slash\ttab", "é\u{2028}\u{7F}\u{1}"])
  func each_event_is_the_text_json_object_writes(path: String) {
    #expect(
      EntryEventJSON.started(job: "0123456789abcdef", line: 7, path: path)
        == reference([("job", "0123456789abcdef"), ("line", 7), ("path", path)]))
    #expect(
      EntryEventJSON.done(
        job: "0123456789abcdef", line: 0, path: path, status: "skipped", bytes: 1 << 40)
        == reference([
          ("job", "0123456789abcdef"), ("line", 0), ("path", path), ("status", "skipped"),
          ("bytes", Int64(1) << 40),
        ]))
    #expect(
      EntryEventJSON.failed(
        job: "j", line: 123_456, path: path, code: "http_404", message: "said \"no\"\n")
        == reference([
          ("job", "j"), ("line", 123_456), ("path", path), ("code", "http_404"),
          ("message", "said \"no\"\n"),
        ]))
  }

  @Test func numbers_are_spelled_as_string_spells_them() {
    for value: Int64 in [0, 9, 10, 99, 100, -1, -10, .max, .min] {
      var bytes: [UInt8] = []
      bytes.appendDecimal(value)
      #expect(String(decoding: bytes, as: UTF8.self) == String(value))
    }
  }
}
