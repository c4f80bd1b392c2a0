import Foundation
import HaulCore

/// Compact JSON text of a Foundation object graph (what the API answers and events carry),
/// keys sorted, and the object of a JSON text.
///
/// Written by hand rather than by `JSONSerialization`, which sorts keys with a
/// locale-aware string comparison and casts every value dynamically, on every event and
/// answer: keys here sort by Swift's own comparison and values by their exact type.
enum JSONText {
  static func encode(_ object: Any) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(256)
    append(object, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The Foundation object of JSON `text` (a journaled report entry), for embedding.
  static func object(_ text: String) -> Any {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]))
      ?? NSNull()
  }

  private static func append(_ value: Any, to bytes: inout [UInt8]) {
    switch value {
    case let text as String:
      JSONObject.appendQuoted(text, to: &bytes)
    case let object as [String: Any]:
      bytes.append(UInt8(ascii: "{"))
      for (index, key) in object.keys.sorted().enumerated() {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        JSONObject.appendQuoted(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        append(object[key]!, to: &bytes)
      }
      bytes.append(UInt8(ascii: "}"))
    case let array as [Any]:
      bytes.append(UInt8(ascii: "["))
      for (index, element) in array.enumerated() {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        append(element, to: &bytes)
      }
      bytes.append(UInt8(ascii: "]"))
    case is NSNull:
      bytes.append(contentsOf: "null".utf8)
    default:
      appendScalar(value, to: &bytes)
    }
  }

  /// A number or a truth value: Swift's own types by their exact type, a parsed document's
  /// `NSNumber` by its C type (`JSONSerialization` gives `true` and `false` as `char`).
  private static func appendScalar(_ value: Any, to bytes: inout [UInt8]) {
    switch value {
    case let flag as Bool where type(of: value) == Bool.self:
      bytes.append(contentsOf: (flag ? "true" : "false").utf8)
    case let number as Int where type(of: value) == Int.self:
      bytes.append(contentsOf: String(number).utf8)
    case let number as Int64 where type(of: value) == Int64.self:
      bytes.append(contentsOf: String(number).utf8)
    case let number as Double where type(of: value) == Double.self:
      appendDouble(number, to: &bytes)
    case let number as NSNumber:
      switch String(cString: number.objCType) {
      case "c", "B": bytes.append(contentsOf: (number.boolValue ? "true" : "false").utf8)
      case "f", "d": appendDouble(number.doubleValue, to: &bytes)
      case "Q", "L", "I", "S", "C": bytes.append(contentsOf: String(number.uint64Value).utf8)
      default: bytes.append(contentsOf: String(number.int64Value).utf8)
      }
    default:
      // Any other value JSON has no form for, as `JSONSerialization` would refuse it.
      bytes.append(contentsOf: "null".utf8)
    }
  }

  /// A whole number without a fraction (as `JSONSerialization` writes `2.0`), others in
  /// the shortest form that reads back the same; JSON has no infinity, so those are 0.
  private static func appendDouble(_ value: Double, to bytes: inout [UInt8]) {
    guard value.isFinite else { return bytes.append(UInt8(ascii: "0")) }
    if value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
      bytes.append(contentsOf: String(Int64(value)).utf8)
    } else {
      bytes.append(contentsOf: value.description.utf8)
    }
  }
}
