/// Builds the text of one JSON object, fields in the order they are added.
///
/// haul's reports and events are written field by field so that their order is stable and
/// readable, and so that nothing has to be collected in a dictionary first. Strings are
/// escaped as RFC 8259 asks; numbers that are not finite are written as 0 (JSON has no
/// infinity), which never happens for the values haul writes.
struct JSONObject {
  private(set) var text = "{"
  private var isEmpty = true

  init() {}

  mutating func add(_ key: String, _ value: String) {
    addRaw(key, JSONObject.quoted(value))
  }

  mutating func add(_ key: String, _ value: Int) {
    addRaw(key, String(value))
  }

  mutating func add(_ key: String, _ value: Int64) {
    addRaw(key, String(value))
  }

  mutating func add(_ key: String, _ value: Bool) {
    addRaw(key, value ? "true" : "false")
  }

  /// Adds a duration or rate, rounded to milliseconds.
  mutating func add(_ key: String, _ value: Double) {
    addRaw(key, JSONObject.number(value))
  }

  /// Adds `json`, which must already be valid JSON text (a nested object).
  mutating func addRaw(_ key: String, _ json: String) {
    if !isEmpty { text += "," }
    isEmpty = false
    text += JSONObject.quoted(key)
    text += ":"
    text += json
  }

  /// The finished object.
  var json: String { text + "}" }

  /// `value` as a JSON string literal, quotes included.
  ///
  /// Works on the UTF-8 bytes: a string with nothing to escape (the common case: paths and
  /// URLs) is copied whole between its quotes; otherwise only the bytes that need it are
  /// escaped (`"`, `\\`, control characters, DEL, and U+2028/U+2029, which some JavaScript
  /// readers take for line ends).
  static func quoted(_ value: String) -> String {
    let bytes = value.utf8
    guard bytes.contains(where: needsCare) else { return "\"" + value + "\"" }
    let input = Array(bytes)
    var out: [UInt8] = [UInt8(ascii: "\"")]
    out.reserveCapacity(input.count + 16)
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
    return String(decoding: out, as: UTF8.self)
  }

  /// Whether `byte` may need escaping (or starts a sequence that may).
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
