/// A small, strict JSON parser (RFC 8259) for one manifest line.
///
/// Why not `JSONSerialization`: it silently keeps one of two repeated keys, and a manifest
/// line with `"url"` twice must be an error. This parser rejects repeated keys in every
/// object, trailing characters after the value, control characters inside strings, lone
/// surrogates in `\u` escapes, and nesting deeper than `maximumDepth`.
///
/// The input must already be well-formed UTF-8 (`UTF8Validation` checks each line first);
/// bytes of multi-byte characters are then copied into strings as they are.
///
/// Besides `parse`, the parser offers its token-level readers (`parseString`, `scanNumber`,
/// `parseValue`, ...) to `ManifestObjectScanner`, which reads an entry's object straight
/// into its fields and reports errors exactly as `parse` would.
package struct JSONLineParser {
  /// How deeply arrays and objects may nest; a manifest needs 2.
  static let maximumDepth = 32

  /// Why a line is not JSON, with the 1-based column (byte offset) where reading stopped.
  package struct SyntaxError: Error {
    var column: Int
    var reason: String
    /// The text is JSON, but an object holds the same key twice.
    var isRepeatedKey = false
  }

  /// The text being read.
  let bytes: UnsafeBufferPointer<UInt8>
  /// The reading position: an offset into `bytes`.
  var index = 0

  init(_ bytes: UnsafeBufferPointer<UInt8>) {
    self.bytes = bytes
  }

  /// Parses `bytes` as exactly one JSON value with optional white space around it.
  package static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(SyntaxError) -> JSONValue {
    var parser = JSONLineParser(bytes)
    parser.skipWhiteSpace()
    let value = try parser.parseValue(depth: 0)
    parser.skipWhiteSpace()
    if parser.index < bytes.count {
      throw parser.error("unexpected \(parser.describeCurrent()) after the JSON value")
    }
    return value
  }

  // MARK: - Values

  /// Reads one value at the reading position; `depth` is how deeply it is nested (1 for a
  /// member of the outermost object).
  mutating func parseValue(depth: Int) throws(SyntaxError) -> JSONValue {
    guard index < bytes.count else { throw error("unexpected end of line") }
    switch bytes[index] {
    case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
    case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
    case UInt8(ascii: "\""): return .string(try parseString())
    case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
    case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
    case UInt8(ascii: "n"): try expectLiteral("null"); return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      let span = try scanNumber()
      return .number(
        JSONNumber(
          text: String(decoding: UnsafeBufferPointer(rebasing: bytes[span]), as: UTF8.self)))
    default: throw error("unexpected \(describeCurrent())")
    }
  }

  private mutating func parseObject(depth: Int) throws(SyntaxError) -> JSONValue {
    guard depth <= Self.maximumDepth else { throw error("nested deeper than \(Self.maximumDepth)") }
    index += 1  // {
    var members: [JSONMember] = []
    var keys = JSONKeySet()
    skipWhiteSpace()
    if consumeIf(UInt8(ascii: "}")) { return .object(members) }
    while true {
      guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
        throw error("expected a string key, found \(describeCurrent())")
      }
      let keyColumn = index + 1
      let key = try parseString()
      guard keys.insert(key) else {
        throw SyntaxError(
          column: keyColumn, reason: "repeated key \(ManifestText.quoted(key))", isRepeatedKey: true
        )
      }
      skipWhiteSpace()
      guard consumeIf(UInt8(ascii: ":")) else {
        throw error("expected ':' after a key, found \(describeCurrent())")
      }
      skipWhiteSpace()
      let value = try parseValue(depth: depth)
      members.append(JSONMember(key: key, value: value))
      skipWhiteSpace()
      if consumeIf(UInt8(ascii: ",")) {
        skipWhiteSpace()
        continue
      }
      if consumeIf(UInt8(ascii: "}")) { return .object(members) }
      throw error("expected ',' or '}' in an object, found \(describeCurrent())")
    }
  }

  private mutating func parseArray(depth: Int) throws(SyntaxError) -> JSONValue {
    guard depth <= Self.maximumDepth else { throw error("nested deeper than \(Self.maximumDepth)") }
    index += 1  // [
    var elements: [JSONValue] = []
    skipWhiteSpace()
    if consumeIf(UInt8(ascii: "]")) { return .array(elements) }
    while true {
      elements.append(try parseValue(depth: depth))
      skipWhiteSpace()
      if consumeIf(UInt8(ascii: ",")) {
        skipWhiteSpace()
        continue
      }
      if consumeIf(UInt8(ascii: "]")) { return .array(elements) }
      throw error("expected ',' or ']' in an array, found \(describeCurrent())")
    }
  }

  // MARK: - Strings

  /// Reads a string starting at its opening quote. Runs without escapes are taken as they
  /// are (one copy); escapes are decoded into a scratch buffer.
  mutating func parseString() throws(SyntaxError) -> String {
    index += 1  // "
    let start = index
    // Fast path: no escape before the closing quote. (A local position keeps the loop in
    // registers.)
    var end = start
    while end < bytes.count {
      let byte = bytes[end]
      if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
      end += 1
    }
    index = end
    if end < bytes.count {
      if bytes[end] == UInt8(ascii: "\"") {
        index += 1
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
      }
      if bytes[end] < 0x20 { throw error("control character in a string (escape it)") }
    }
    var scratch = Array(bytes[start..<index])
    while index < bytes.count {
      let byte = bytes[index]
      switch byte {
      case UInt8(ascii: "\""):
        index += 1
        return String(decoding: scratch, as: UTF8.self)
      case UInt8(ascii: "\\"):
        try parseEscape(into: &scratch)
      case 0..<0x20:
        throw error("control character in a string (escape it)")
      default:
        scratch.append(byte)
        index += 1
      }
    }
    throw error("unterminated string")
  }

  private mutating func parseEscape(into scratch: inout [UInt8]) throws(SyntaxError) {
    let escapeStart = index
    index += 1  // backslash
    guard index < bytes.count else { throw error("unterminated string") }
    let letter = bytes[index]
    index += 1
    switch letter {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(letter)
    case UInt8(ascii: "b"): scratch.append(0x08)
    case UInt8(ascii: "f"): scratch.append(0x0C)
    case UInt8(ascii: "n"): scratch.append(0x0A)
    case UInt8(ascii: "r"): scratch.append(0x0D)
    case UInt8(ascii: "t"): scratch.append(0x09)
    case UInt8(ascii: "u"):
      var scalar = UInt32(try parseHex4())
      if (0xDC00...0xDFFF).contains(scalar) {
        throw SyntaxError(column: escapeStart + 1, reason: "lone low surrogate in a \\u escape")
      }
      if (0xD800...0xDBFF).contains(scalar) {
        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
          bytes[index + 1] == UInt8(ascii: "u")
        else {
          throw SyntaxError(column: escapeStart + 1, reason: "lone high surrogate in a \\u escape")
        }
        index += 2
        let low = UInt32(try parseHex4())
        guard (0xDC00...0xDFFF).contains(low) else {
          throw SyntaxError(column: escapeStart + 1, reason: "lone high surrogate in a \\u escape")
        }
        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
      }
      scratch.append(contentsOf: String(Unicode.Scalar(scalar)!).utf8)
    default:
      throw SyntaxError(column: escapeStart + 1, reason: "invalid escape in a string")
    }
  }

  private mutating func parseHex4() throws(SyntaxError) -> UInt16 {
    guard index + 4 <= bytes.count else { throw error("incomplete \\u escape") }
    var value: UInt16 = 0
    for _ in 0..<4 {
      let byte = bytes[index]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: throw error("invalid hex digit in a \\u escape")
      }
      value = value << 4 | UInt16(digit)
      index += 1
    }
    return value
  }

  // MARK: - Numbers and literals

  /// Reads `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` and returns where it
  /// lies in `bytes`.
  mutating func scanNumber() throws(SyntaxError) -> Range<Int> {
    let start = index
    _ = consumeIf(UInt8(ascii: "-"))
    if consumeIf(UInt8(ascii: "0")) {
      if index < bytes.count, isDigit(bytes[index]) { throw error("leading zero in a number") }
    } else if !consumeDigits() {
      throw error("expected a digit, found \(describeCurrent())")
    }
    if consumeIf(UInt8(ascii: ".")) {
      guard consumeDigits() else { throw error("expected a digit after '.'") }
    }
    if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
      index += 1
      if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")
      {
        index += 1
      }
      guard consumeDigits() else { throw error("expected a digit in the exponent") }
    }
    return start..<index
  }

  private mutating func consumeDigits() -> Bool {
    let start = index
    while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    return index > start
  }

  private func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
  }

  private mutating func expectLiteral(_ literal: String) throws(SyntaxError) {
    for expected in literal.utf8 {
      guard index < bytes.count, bytes[index] == expected else {
        throw error("unexpected \(describeCurrent())")
      }
      index += 1
    }
  }

  // MARK: - Helpers

  mutating func consumeIf(_ byte: UInt8) -> Bool {
    guard index < bytes.count, bytes[index] == byte else { return false }
    index += 1
    return true
  }

  /// JSON white space: space, tab, line feed, carriage return.
  mutating func skipWhiteSpace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x09, 0x0A, 0x0D: index += 1
      default: return
      }
    }
  }

  /// The byte at the reading position, for messages: `'x'`, `byte 0xC3`, or `end of line`.
  func describeCurrent() -> String {
    guard index < bytes.count else { return "end of line" }
    let byte = bytes[index]
    if byte == UInt8(ascii: "'") { return "\"'\"" }
    if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
    return "byte 0x\(String(byte, radix: 16, uppercase: true))"
  }

  /// A syntax error at the reading position.
  func error(_ reason: String) -> SyntaxError {
    SyntaxError(column: index + 1, reason: reason)
  }
}
