import Testing

@testable import HaulCore

@Suite struct JSONLineParserTests {
  private func parse(_ text: String) throws(JSONLineParser.SyntaxError) -> JSONValue {
    var text = text
    let result = text.withUTF8 { bytes in
      Result { () throws(JSONLineParser.SyntaxError) in try JSONLineParser.parse(bytes) }
    }
    return try result.get()
  }

  private func string(_ text: String) throws -> String? {
    guard case .string(let value) = try parse(text) else { return nil }
    return value
  }

  @Test(arguments: [
    (#""plain""#, "plain"),
    (#""q\"b\\s\/""#, #"q"b\s/"#),
    (#""\b\f\n\r\t""#, "\u{8}\u{C}\n\r\t"),
    (#""\u0041\u00e9\u4E2D""#, "Aé中"),
    (#""\ud83d\ude00!""#, "😀!"),
    (#""\u0000""#, "\u{0}"),
    (#""déjà""#, "déjà"),
    (#""""#, ""),
  ])
  func decodes_strings(_ text: String, _ expected: String) throws {
    #expect(try string(text) == expected)
  }

  @Test(arguments: [
    #""\ud800""#, #""\udc00""#, #""\ud800\u0041""#, #""\u12""#, #""\u12G4""#, #""\x41""#,
    "\"a\u{1}\"", #""open"#, #""trailing\"#,
  ])
  func rejects_bad_strings(_ text: String) {
    #expect(throws: JSONLineParser.SyntaxError.self) { try parse(text) }
  }

  @Test(arguments: ["0", "-0", "12", "-3.25", "1e10", "1E+2", "2.5e-3", "0.0"])
  func accepts_numbers(_ text: String) throws {
    guard case .number(let number) = try parse(text) else {
      Issue.record("not a number")
      return
    }
    #expect(number.text == text)
  }

  @Test(arguments: ["01", "-", "+1", "1.", ".5", "1e", "1e+", "0x10", "NaN", "Infinity", "1 2"])
  func rejects_bad_numbers(_ text: String) {
    #expect(throws: JSONLineParser.SyntaxError.self) { try parse(text) }
  }

  @Test(arguments: [
    ("1024", JSONNumber.WholeNumber.value(1024)),
    ("1024.000", .value(1024)),
    ("1.024e3", .value(1024)),
    ("10240e-1", .value(1024)),
    ("0e99999999999999", .value(0)),
    ("-0.0", .value(0)),
    ("9223372036854775807", .value(.max)),
    ("9223372036854775808", .tooLarge),
    ("1e19", .tooLarge),
    ("1e99999999999999999999", .tooLarge),
    ("-1", .negative),
    ("-1e-5", .negative),
    ("1.5", .notWhole),
    ("1e-1", .notWhole),
    ("123456789012345678.9", .notWhole),
  ])
  func reads_whole_numbers(_ text: String, _ expected: JSONNumber.WholeNumber) {
    #expect(JSONNumber(text: text).wholeNumber == expected)
  }

  @Test func parses_nested_values_in_order() throws {
    let value = try parse(#" { "b" : [ true , false , null , { } , [ ] ] , "a" : { "x" : "y" } } "#)
    guard case .object(let members) = value else {
      Issue.record("not an object")
      return
    }
    #expect(members.map(\.key) == ["b", "a"])
    guard case .array(let elements) = members[0].value else {
      Issue.record("not an array")
      return
    }
    #expect(
      elements.map(\.kindName) == ["a boolean", "a boolean", "null", "an object", "an array"])
  }

  @Test(arguments: [
    "tru", "nul", "{", "[1,]", #"{"a":1,}"#, #"{"a" 1}"#, #"{1:2}"#, "{} {}", "[1] x", "",
  ])
  func rejects_bad_structure(_ text: String) {
    #expect(throws: JSONLineParser.SyntaxError.self) { try parse(text) }
  }

  @Test func finds_repeated_keys_in_large_objects() throws {
    let keys = (0..<40).map { #""k\#($0)":\#($0)"# }
    #expect(throws: Never.self) { try parse("{" + keys.joined(separator: ",") + "}") }
    let error = #expect(throws: JSONLineParser.SyntaxError.self) {
      try parse("{" + (keys + [#""k3":0"#]).joined(separator: ",") + "}")
    }
    #expect(error?.isRepeatedKey == true)
    #expect(error?.reason == #"repeated key "k3""#)
  }

  @Test func compares_keys_as_bytes_not_by_canonical_equivalence() throws {
    // "é" precomposed and decomposed are equal as Swift strings but are different keys.
    #expect(throws: Never.self) { try parse(#"{"\u00e9":1,"e\u0301":2}"#) }
  }

  @Test func limits_nesting() {
    let deep = String(repeating: "[", count: 33) + String(repeating: "]", count: 33)
    let error = #expect(throws: JSONLineParser.SyntaxError.self) { try parse(deep) }
    #expect(error?.reason.contains("nested deeper") == true)
    let ok = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
    #expect(throws: Never.self) { try parse(ok) }
  }

  @Test func reports_the_column() {
    let error = #expect(throws: JSONLineParser.SyntaxError.self) { try parse(#"{"a":tx}"#) }
    #expect(error?.column == 7)
    #expect(error?.reason == "unexpected 'x'")
  }
}

@Suite struct UTF8ValidationTests {
  @Test(arguments: [
    [UInt8](), Array("plain ASCII that is longer than eight bytes".utf8), Array("é中😀".utf8),
    [0xF4, 0x8F, 0xBF, 0xBF], [0xEF, 0xBF, 0xBF], [0xED, 0x9F, 0xBF],
  ])
  func accepts_well_formed(_ bytes: [UInt8]) {
    #expect(bytes.withUnsafeBufferPointer { UTF8Validation.firstInvalidOffset(in: $0) } == nil)
  }

  @Test(
    arguments: [
      ([0x80], 0), ([0x41, 0xC3], 1), ([0xC1, 0xBF], 0), ([0xE0, 0x9F, 0x80], 0),
      ([0xED, 0xA0, 0x80], 0), ([0xF0, 0x8F, 0x80, 0x80], 0), ([0xF4, 0x90, 0x80, 0x80], 0),
      ([0xF5, 0x80, 0x80, 0x80], 0), ([0xE2, 0x82, 0x41], 0),
      (Array("twelve bytes".utf8) + [0xFE], 12),
    ] as [([UInt8], Int)])
  func finds_the_first_bad_byte(_ bytes: [UInt8], _ offset: Int) {
    #expect(bytes.withUnsafeBufferPointer { UTF8Validation.firstInvalidOffset(in: $0) } == offset)
  }
}
