/// A JSON value as read from one manifest line. Objects keep their members in the order
/// written (keys are unique: the parser rejects repeated keys).
package enum JSONValue {
  case null
  case bool(Bool)
  case number(JSONNumber)
  case string(String)
  case array([JSONValue])
  case object([JSONMember])

  /// The value's kind, for messages such as `"size" must be a number, not a string`.
  var kindName: String {
    switch self {
    case .null: "null"
    case .bool: "a boolean"
    case .number: "a number"
    case .string: "a string"
    case .array: "an array"
    case .object: "an object"
    }
  }
}

/// One `"key": value` pair of a JSON object.
package struct JSONMember {
  package var key: String
  package var value: JSONValue
}

/// A JSON number kept as its exact text, so that integers are read without going through
/// `Double` (which would round sizes above 2^53).
package struct JSONNumber {
  /// The number exactly as written, e.g. `-12.5e3`.
  package var text: String

  /// What reading the number as a non-negative 64-bit integer gives.
  enum WholeNumber: Equatable {
    case value(Int64)
    case negative
    case notWhole
    case tooLarge
  }

  /// `wholeNumber` of the number whose text is `text` (the UTF-8 bytes of a JSON number),
  /// reading the usual spelling, up to 18 plain digits, without making a string first.
  static func wholeNumber(of text: UnsafeBufferPointer<UInt8>) -> WholeNumber {
    if let value = plainValue(text) { return .value(value) }
    return JSONNumber(text: String(decoding: text, as: UTF8.self)).wholeNumber
  }

  /// The value of up to 18 plain digits (which cannot overflow), else `nil`.
  private static func plainValue(_ text: some Collection<UInt8>) -> Int64? {
    guard text.count <= 18 else { return nil }
    var value: Int64 = 0
    for byte in text {
      guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
      value = value * 10 + Int64(byte - UInt8(ascii: "0"))
    }
    return value
  }

  /// The number's exact value as a non-negative `Int64`. Any spelling of a whole number is
  /// accepted (`1024`, `1024.0`, `1.024e3`, `-0`); `1.5`, `1e-3`, `-1` and values above
  /// `Int64.max` are not.
  var wholeNumber: WholeNumber {
    if let value = Self.plainValue(text.utf8) { return .value(value) }
    var utf8 = Array(text.utf8)[...]
    var negative = false
    if utf8.first == UInt8(ascii: "-") {
      negative = true
      utf8 = utf8.dropFirst()
    }
    var digits: [UInt8] = []
    var fractionCount = 0
    var exponent = 0
    var inFraction = false
    var index = utf8.startIndex
    while index < utf8.endIndex {
      let byte = utf8[index]
      if byte == UInt8(ascii: ".") {
        inFraction = true
      } else if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
        exponent = Self.saturatingExponent(utf8[(index + 1)...])
        break
      } else {
        digits.append(byte &- UInt8(ascii: "0"))
        if inFraction { fractionCount += 1 }
      }
      index += 1
    }
    // Drop leading zeros; a number whose digits are all zero is zero whatever its exponent.
    guard let firstNonZero = digits.firstIndex(where: { $0 != 0 }) else { return .value(0) }
    if negative { return .negative }
    var significant = digits[firstNonZero...]
    var scale = exponent - fractionCount
    while let last = significant.last, last == 0 {
      significant = significant.dropLast()
      scale += 1
    }
    if scale < 0 { return .notWhole }
    // Int64.max has 19 digits.
    if significant.count + scale > 19 { return .tooLarge }
    var value: Int64 = 0
    for digit in significant + repeatElement(0, count: scale) {
      let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
      let (sum, overflow2) = times10.addingReportingOverflow(Int64(digit))
      if overflow1 || overflow2 { return .tooLarge }
      value = sum
    }
    return .value(value)
  }

  /// An exponent's value (`+3`, `-12`, `007`), clamped to ±1,000,000: far beyond anything
  /// that matters for a 19-digit integer, and safe from overflow.
  private static func saturatingExponent(_ text: ArraySlice<UInt8>) -> Int {
    var sign = 1
    var magnitude = 0
    for byte in text {
      switch byte {
      case UInt8(ascii: "-"): sign = -1
      case UInt8(ascii: "+"): break
      default: magnitude = min(magnitude * 10 + Int(byte &- UInt8(ascii: "0")), 1_000_000)
      }
    }
    return sign * magnitude
  }
}
