/// Builds the text of one JSON object, fields in the order they are added.
///
/// haul's reports and events are written field by field so that their order is stable and
/// readable, and so that nothing has to be collected in a dictionary first. Strings are
/// escaped as RFC 8259 asks; numbers that are not finite are written as 0 (JSON has no
/// infinity), which never happens for the values haul writes.
package struct JSONObject {
  /// The object's UTF-8 text so far, without its closing brace. Built as bytes, since
  /// `String` appends would be most of the cost of writing a large report.
  package private(set) var bytes: [UInt8]
  private var isEmpty = true

  package init() {
    bytes = [UInt8(ascii: "{")]
    // A report's transfer object is about 300 bytes: room for it without growing.
    bytes.reserveCapacity(512)
  }

  /// An object that goes on the end of `out`, built in `out`'s own storage (taken, and
  /// given back by `close(into:)`): a report line is written without a buffer of its own.
  package init(extending out: inout [UInt8]) {
    bytes = []
    swap(&bytes, &out)
    bytes.append(UInt8(ascii: "{"))
  }

  /// Closes the object begun by `init(extending:)` and gives its bytes back to `out`.
  package mutating func close(into out: inout [UInt8]) {
    bytes.append(UInt8(ascii: "}"))
    swap(&bytes, &out)
  }

  package mutating func add(_ key: StaticString, _ value: String) {
    addKey(key)
    JSONObject.appendQuoted(value, to: &bytes)
  }

  package mutating func add(_ key: StaticString, _ value: Int) {
    addKey(key)
    JSONObject.appendDecimal(Int64(value), to: &bytes)
  }

  package mutating func add(_ key: StaticString, _ value: Int64) {
    addKey(key)
    JSONObject.appendDecimal(value, to: &bytes)
  }

  /// Adds a string from haul's own vocabulary (a status, an operation, an error code), whose
  /// characters never need escaping: copied as it is.
  package mutating func add(_ key: StaticString, plain value: String) {
    addKey(key)
    JSONObject.appendPlain(value, to: &bytes)
  }

  /// Adds a nested object, built by `fill` in place.
  package mutating func addObject(_ key: StaticString, _ fill: (inout JSONObject) -> Void) {
    addKey(key)
    var nested = JSONObject(extending: &bytes)
    fill(&nested)
    nested.close(into: &bytes)
  }

  package mutating func add(_ key: StaticString, _ value: Bool) {
    addKey(key)
    bytes.append(contentsOf: (value ? "true" : "false").utf8)
  }

  /// Adds a duration or rate, rounded to milliseconds.
  package mutating func add(_ key: StaticString, _ value: Double) {
    addKey(key)
    if value == 0 {
      bytes.append(UInt8(ascii: "0"))
    } else {
      bytes.append(contentsOf: JSONObject.number(value).utf8)
    }
  }

  /// Adds an array of strings.
  package mutating func add(_ key: StaticString, _ values: [String]) {
    addKey(key)
    bytes.append(UInt8(ascii: "["))
    for (index, value) in values.enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      JSONObject.appendQuoted(value, to: &bytes)
    }
    bytes.append(UInt8(ascii: "]"))
  }

  /// Adds `json`, which must already be valid JSON text (a nested object).
  package mutating func addRaw(_ key: StaticString, _ json: String) {
    addKey(key)
    bytes.append(contentsOf: json.utf8)
  }

  /// Adds a string under a name that is data (a digest's algorithm, a header's name),
  /// escaped as any string is.
  package mutating func add(name: String, _ value: String) {
    separate()
    JSONObject.appendQuoted(name, to: &bytes)
    bytes.append(UInt8(ascii: ":"))
    JSONObject.appendQuoted(value, to: &bytes)
  }

  /// A key haul names in its source: copied as it is, since such names never need escaping.
  private mutating func addKey(_ key: StaticString) {
    separate()
    bytes.append(UInt8(ascii: "\""))
    key.withUTF8Buffer { name in
      assert(!name.contains(where: JSONObject.needsCare), "a key that needs escaping")
      bytes.append(contentsOf: name)
    }
    bytes.append(UInt8(ascii: "\""))
    bytes.append(UInt8(ascii: ":"))
  }

  private mutating func separate() {
    if !isEmpty { bytes.append(UInt8(ascii: ",")) }
    isEmpty = false
  }

  /// The finished object.
  package var json: String {
    // Written straight into the string's storage, without a copy of `bytes` to close.
    String(unsafeUninitializedCapacity: bytes.count + 1) { buffer in
      let end = buffer.initialize(fromContentsOf: bytes)
      buffer[end] = UInt8(ascii: "}")
      return end + 1
    }
  }

  /// The finished object's UTF-8 bytes, appended to `out`.
  package func appendJSON(to out: inout [UInt8]) {
    out.append(contentsOf: bytes)
    out.append(UInt8(ascii: "}"))
  }

  /// `value` as a JSON string literal, quotes included.
  static func quoted(_ value: String) -> String {
    var out: [UInt8] = []
    appendQuoted(value, to: &out)
    return String(decoding: out, as: UTF8.self)
  }

  /// Appends `value`, which holds nothing to escape, between quotes to `out`.
  private static func appendPlain(_ value: String, to out: inout [UInt8]) {
    var value = value
    value.withUTF8 { input in
      assert(!input.contains(where: needsCare), "a plain string that needs escaping")
      out.append(UInt8(ascii: "\""))
      out.append(contentsOf: input)
      out.append(UInt8(ascii: "\""))
    }
  }

  /// Appends `value` in decimal to `out`, without making a string of it.
  static func appendDecimal(_ value: Int64, to out: inout [UInt8]) {
    if value < 0 { out.append(UInt8(ascii: "-")) }
    var magnitude = value.magnitude
    guard magnitude >= 10 else {
      out.append(UInt8(ascii: "0") + UInt8(magnitude))
      return
    }
    // 20 digits hold any UInt64.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      var start = 20
      while magnitude > 0 {
        start -= 1
        digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
        magnitude /= 10
      }
      out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start..<20]))
    }
  }

  /// Appends `value` as a JSON string literal, quotes included, to `out`.
  ///
  /// Works on the UTF-8 bytes: a string with nothing to escape (the common case: paths and
  /// URLs) is copied whole between its quotes; otherwise only the bytes that need it are
  /// escaped (`"`, `\\`, control characters, DEL, and U+2028/U+2029, which some JavaScript
  /// readers take for line ends).
  package static func appendQuoted(_ value: String, to out: inout [UInt8]) {
    var value = value
    value.withUTF8 { input in
      out.append(UInt8(ascii: "\""))
      guard !isPlainASCII(input) else {
        out.append(contentsOf: input)
        out.append(UInt8(ascii: "\""))
        return
      }
      var index = 0
      while index < input.count {
        let byte = input[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""): out += Array("\\\"".utf8)
        case UInt8(ascii: "\\"): out += Array("\\\\".utf8)
        case UInt8(ascii: "\n"): out += Array("\\n".utf8)
        case UInt8(ascii: "\r"): out += Array("\\r".utf8)
        case UInt8(ascii: "\t"): out += Array("\\t".utf8)
        case 0x08: out += Array("\\b".utf8)
        case 0x0C: out += Array("\\f".utf8)
        case 0xE2
        where index + 1 < input.count && input[index] == 0x80
          && (input[index + 1] == 0xA8 || input[index + 1] == 0xA9):
          // U+2028 and U+2029 are E2 80 A8 and E2 80 A9.
          out += Array((input[index + 1] == 0xA8 ? "\\u2028" : "\\u2029").utf8)
          index += 2
        case 0x00..<0x20, 0x7F:
          out += Array("\\u00".utf8)
          out.append(hexDigit(byte >> 4))
          out.append(hexDigit(byte & 0xF))
        default:
          out.append(byte)
        }
      }
      out.append(UInt8(ascii: "\""))
    }
  }

  /// Whether `input` is ASCII with nothing to escape, looked at eight bytes a step: a
  /// report line's URL and path are read this way once per entry. `false` sends the string
  /// to the byte-by-byte escaping, which copies what needs no escape as it is.
  static func isPlainASCII(_ input: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = input.baseAddress else { return true }
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    /// Whether some byte of `word` is zero (exact as a whole, if not as to which byte).
    func hasZero(_ word: UInt64) -> Bool { (word &- ones) & ~word & highs != 0 }
    var index = 0
    while index + 8 <= input.count {
      let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
      // A byte with its top bit set, under 0x20 (what is left below 0x80 after taking
      // 0x20 off has its top bit set), or `"`, `\` or DEL.
      if word & highs != 0 || (word &- ones &* 0x20) & ~word & highs != 0
        || hasZero(word ^ (ones &* 0x22)) || hasZero(word ^ (ones &* 0x5C))
        || hasZero(word ^ (ones &* 0x7F))
      {
        return false
      }
      index += 8
    }
    while index < input.count {
      let byte = input[index]
      if byte >= 0x7F || needsCare(byte) { return false }
      index += 1
    }
    return true
  }

  /// Whether `byte` may need escaping (or starts a sequence that may).
  @inline(__always)
  private static func needsCare(_ byte: UInt8) -> Bool {
    byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F
      || byte == 0xE2
  }

  /// `value` rounded to milliseconds, as a JSON number.
  static func number(_ value: Double) -> String {
    guard value.isFinite else { return "0" }
    let millis = (value * 1000).rounded()
    if abs(millis) < 1e15 {
      let whole = Int64(millis)
      let sign = whole < 0 ? "-" : ""
      let magnitude = whole.magnitude
      let fraction = magnitude % 1000
      var text = "\(sign)\(magnitude / 1000)"
      if fraction != 0 {
        var digits = String(fraction)
        digits = String(repeating: "0", count: 3 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        text += "." + digits
      }
      return text
    }
    return String(Int64(value.rounded()))
  }

  private static func hexDigit(_ value: UInt8) -> UInt8 {
    value < 10 ? 48 + value : 87 + value
  }
}
