/// Decodes the standard base64 alphabet (RFC 4648 §4), the form every digest header uses.
enum Base64 {
  /// The bytes `text` encodes, or `nil` when it is not base64: a character outside the
  /// alphabet, `=` anywhere but at the end, or a length no encoding has. The `=` padding may
  /// be left out (RFC 8941 asks parsers of byte sequences to accept that).
  static func decode(_ text: some BidirectionalCollection<UInt8>) -> [UInt8]? {
    var body = text[...]
    var padding = 0
    while body.last == UInt8(ascii: "="), padding < 2 {
      body = body.dropLast()
      padding += 1
    }
    let count = body.count
    guard count % 4 != 1, padding == 0 || (count + padding) % 4 == 0 else { return nil }
    var out: [UInt8] = []
    out.reserveCapacity(count * 3 / 4)
    var accumulator: UInt32 = 0
    var bits = 0
    for byte in body {
      guard let value = sextet(byte) else { return nil }
      accumulator = accumulator << 6 | UInt32(value)
      bits += 6
      if bits >= 8 {
        bits -= 8
        out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
      }
    }
    return out
  }

  private static func sextet(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
    case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
    case UInt8(ascii: "+"): 62
    case UInt8(ascii: "/"): 63
    default: nil
    }
  }
}
