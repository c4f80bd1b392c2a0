/// Reads a Structured Field Dictionary (RFC 8941 §4.2.2, as RFC 9530's `Repr-Digest` and
/// `Content-Digest` are), keeping the members whose value is a byte sequence.
///
/// The whole syntax is parsed (integers, decimals, strings, tokens, booleans, dates, inner
/// lists, parameters) so that a member haul does not use cannot hide a malformed field: as
/// RFC 8941 asks, any syntax error makes the whole field fail, and the caller ignores it.
struct StructuredFieldDictionary {
  private let bytes: [UInt8]
  private var index = 0

  private init(_ text: String) {
    bytes = Array(text.utf8)
  }

  /// The byte-sequence members of the dictionary `text`, by key (a key given twice keeps its
  /// last value, as RFC 8941 says; a later member that is not a byte sequence removes an
  /// earlier one). `nil` when `text` is not a valid dictionary.
  static func byteSequences(in text: String) -> [String: [UInt8]]? {
    var parser = StructuredFieldDictionary(text)
    return parser.parse()
  }

  private mutating func parse() -> [String: [UInt8]]? {
    var members: [String: [UInt8]] = [:]
    skip(while: { $0 == Self.space })
    if index == bytes.count { return members }
    while true {
      guard let key = parseKey() else { return nil }
      if consume(UInt8(ascii: "=")) {
        if peek == UInt8(ascii: "(") {
          guard parseInnerList() else { return nil }
          members[key] = nil
        } else {
          guard let value = parseBareItem(), parseParameters() else { return nil }
          if case .bytes(let decoded) = value {
            members[key] = decoded
          } else {
            members[key] = nil
          }
        }
      } else {
        // A key alone is the boolean true, possibly with parameters.
        guard parseParameters() else { return nil }
        members[key] = nil
      }
      skip(while: Self.isOptionalWhiteSpace)
      if index == bytes.count { return members }
      guard consume(UInt8(ascii: ",")) else { return nil }
      skip(while: Self.isOptionalWhiteSpace)
      if index == bytes.count { return nil }  // a trailing comma
    }
  }

  /// What a bare item is, as far as haul cares.
  private enum BareItem {
    case bytes([UInt8])
    case other
  }

  private mutating func parseBareItem() -> BareItem? {
    guard let first = peek else { return nil }
    switch first {
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      return parseNumber() ? .other : nil
    case UInt8(ascii: "\""):
      return parseString() ? .other : nil
    case UInt8(ascii: "*"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "a")...UInt8(ascii: "z"):
      index += 1
      skip(while: {
        Self.isTokenCharacter($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "/")
      })
      return .other
    case UInt8(ascii: ":"):
      return parseByteSequence().map { .bytes($0) }
    case UInt8(ascii: "?"):
      index += 1
      guard consume(UInt8(ascii: "0")) || consume(UInt8(ascii: "1")) else { return nil }
      return .other
    case UInt8(ascii: "@"):
      // A date (RFC 9651): an integer number of seconds.
      index += 1
      return parseNumber(integerOnly: true) ? .other : nil
    default:
      return nil
    }
  }

  private mutating func parseKey() -> String? {
    guard let first = peek, Self.isLowercaseLetter(first) || first == UInt8(ascii: "*") else {
      return nil
    }
    let start = index
    index += 1
    skip(while: {
      Self.isLowercaseLetter($0) || Self.isDigit($0) || $0 == UInt8(ascii: "_")
        || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "*")
    })
    return String(decoding: bytes[start..<index], as: UTF8.self)
  }

  private mutating func parseParameters() -> Bool {
    while consume(UInt8(ascii: ";")) {
      skip(while: { $0 == Self.space })
      guard parseKey() != nil else { return false }
      if consume(UInt8(ascii: "=")) {
        guard parseBareItem() != nil else { return false }
      }
    }
    return true
  }

  private mutating func parseInnerList() -> Bool {
    index += 1  // (
    while true {
      skip(while: { $0 == Self.space })
      if consume(UInt8(ascii: ")")) { return parseParameters() }
      guard parseBareItem() != nil, parseParameters() else { return false }
      guard let next = peek, next == Self.space || next == UInt8(ascii: ")") else { return false }
    }
  }

  /// An integer (at most 15 digits) or a decimal (at most 12 digits, `.`, 1 to 3 digits).
  private mutating func parseNumber(integerOnly: Bool = false) -> Bool {
    _ = consume(UInt8(ascii: "-"))
    let start = index
    skip(while: Self.isDigit)
    let integerDigits = index - start
    guard integerDigits > 0 else { return false }
    guard !integerOnly, consume(UInt8(ascii: ".")) else { return integerDigits <= 15 }
    let fractionStart = index
    skip(while: Self.isDigit)
    let fractionDigits = index - fractionStart
    return integerDigits <= 12 && (1...3).contains(fractionDigits)
  }

  private mutating func parseString() -> Bool {
    index += 1  // "
    while let byte = peek {
      index += 1
      switch byte {
      case UInt8(ascii: "\\"):
        guard consume(UInt8(ascii: "\"")) || consume(UInt8(ascii: "\\")) else { return false }
      case UInt8(ascii: "\""):
        return true
      case 0x20...0x7E:
        continue
      default:
        return false
      }
    }
    return false
  }

  private mutating func parseByteSequence() -> [UInt8]? {
    index += 1  // :
    let start = index
    skip(while: { Self.isBase64Character($0) })
    guard consume(UInt8(ascii: ":")) else { return nil }
    return Base64.decode(bytes[start..<(index - 1)])
  }

  // MARK: - Reading

  private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

  private mutating func consume(_ byte: UInt8) -> Bool {
    guard peek == byte else { return false }
    index += 1
    return true
  }

  private mutating func skip(while predicate: (UInt8) -> Bool) {
    while index < bytes.count, predicate(bytes[index]) { index += 1 }
  }

  private static let space = UInt8(ascii: " ")

  private static func isOptionalWhiteSpace(_ byte: UInt8) -> Bool {
    byte == space || byte == UInt8(ascii: "\t")
  }

  private static func isLowercaseLetter(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")
  }

  private static func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
  }

  private static func isBase64Character(_ byte: UInt8) -> Bool {
    (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || isLowercaseLetter(byte)
      || isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
      || byte == UInt8(ascii: "=")
  }

  /// `tchar` of RFC 9110.
  private static func isTokenCharacter(_ byte: UInt8) -> Bool {
    if isDigit(byte) || isLowercaseLetter(byte)
      || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    {
      return true
    }
    return "!#$%&'*+-.^_`|~".utf8.contains(byte)
  }
}
