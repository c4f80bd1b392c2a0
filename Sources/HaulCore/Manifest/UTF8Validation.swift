/// Strict UTF-8 validation of raw bytes, as the Unicode Standard (table 3-7) defines
/// well-formed UTF-8: no overlong forms, no surrogates (U+D800–U+DFFF), nothing above U+10FFFF.
enum UTF8Validation {
  /// The offset of the first byte that starts an ill-formed sequence, or `nil` when `bytes`
  /// are well-formed UTF-8. ASCII runs are checked eight bytes at a time.
  static func firstInvalidOffset(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
    guard let base = bytes.baseAddress else { return nil }
    let count = bytes.count
    var index = 0
    while index < count {
      while index + 8 <= count {
        let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
        if word & 0x8080_8080_8080_8080 != 0 { break }
        index += 8
      }
      guard index < count else { return nil }
      let lead = base[index]
      if lead < 0x80 {
        index += 1
        continue
      }
      let length: Int
      var low: UInt8 = 0x80
      var high: UInt8 = 0xBF
      switch lead {
      case 0xC2...0xDF: length = 2
      case 0xE0: (length, low) = (3, 0xA0)
      case 0xE1...0xEC, 0xEE...0xEF: length = 3
      case 0xED: (length, high) = (3, 0x9F)
      case 0xF0: (length, low) = (4, 0x90)
      case 0xF1...0xF3: length = 4
      case 0xF4: (length, high) = (4, 0x8F)
      default: return index
      }
      guard index + length <= count else { return index }
      let second = base[index + 1]
      guard second >= low && second <= high else { return index }
      for offset in 2..<length where base[index + offset] & 0xC0 != 0x80 {
        return index
      }
      index += length
    }
    return nil
  }
}
