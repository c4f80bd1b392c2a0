/// Lowercase hex, the one spelling of a digest inside haul.
package enum Hex {
  private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

  /// `bytes` as lowercase hex digits.
  package static func encode(_ bytes: UnsafeRawBufferPointer) -> String {
    String(unsafeUninitializedCapacity: bytes.count * 2) { out in
      var index = 0
      for byte in bytes {
        out[index] = digits[Int(byte >> 4)]
        out[index + 1] = digits[Int(byte & 0x0f)]
        index += 2
      }
      return index
    }
  }

  /// `bytes` as lowercase hex digits.
  package static func encode(_ bytes: [UInt8]) -> String {
    bytes.withUnsafeBytes { encode($0) }
  }

  /// `text` in lower case when it is `length` hex digits of either case, else `nil`. A text
  /// already in lower case (the usual spelling) is returned as it is, not copied.
  package static func normalized(_ text: String, length: Int) -> String? {
    var text = text
    // Over the bytes in place rather than through the `utf8` view's iterator, which is far
    // slower per byte: every manifest line with a digest comes through here twice.
    let upper = text.withUTF8 { bytes -> Bool? in
      guard bytes.count == length else { return nil }
      var hasUpper = false
      for byte in bytes {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): break
        case UInt8(ascii: "A")...UInt8(ascii: "F"): hasUpper = true
        default: return nil
        }
      }
      return hasUpper
    }
    guard let upper else { return nil }
    return upper ? text.lowercased() : text
  }

  /// Appends the bytes that `hex` (hex digits of either case, an even number of them)
  /// spells to `out`.
  package static func appendDecoded(_ hex: String, to out: inout [UInt8]) {
    var high: UInt8?
    for byte in hex.utf8 {
      let value =
        byte <= UInt8(ascii: "9")
        ? byte &- UInt8(ascii: "0") : (byte | 0x20) &- UInt8(ascii: "a") &+ 10
      if let first = high {
        out.append(first << 4 | value)
        high = nil
      } else {
        high = value
      }
    }
  }

  /// The value of the hex digit `byte` (either case), or `nil` when it is not one.
  package static func value(of byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }

  /// Whether every byte of `bytes` is a hex digit of either case.
  package static func isHex(_ bytes: some Sequence<UInt8>) -> Bool {
    bytes.allSatisfy { byte in
      (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
        || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f"))
    }
  }
}
