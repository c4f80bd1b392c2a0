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
  static func quoted(_ value: String) -> String {
    var out = "\""
    out.unicodeScalars.reserveCapacity(value.utf8.count + 2)
    for scalar in value.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case "\u{08}": out += "\\b"
      case "\u{0C}": out += "\\f"
      case "\u{2028}": out += "\\u2028"
      case "\u{2029}": out += "\\u2029"
      default:
        if scalar.value < 0x20 || scalar.value == 0x7F {
          out += "\\u00"
          out += hexDigit(scalar.value >> 4)
          out += hexDigit(scalar.value & 0xF)
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    out += "\""
    return out
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

  private static func hexDigit(_ value: UInt32) -> String {
    String(UnicodeScalar(UInt8(value < 10 ? 48 + value : 87 + value)))
  }
}
