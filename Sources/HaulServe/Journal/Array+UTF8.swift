/// Appends of text to the bytes the journal's rows and the event stream are built in.
///
/// `append(contentsOf: text.utf8)` goes through the generic sequence path, a few hundred
/// instructions for a short string; these copy the string's contiguous UTF-8 at once and
/// write numbers' digits without making a string, which matters at a few per file.
extension [UInt8] {
  /// Appends `text`'s UTF-8 bytes.
  @inline(__always)
  mutating func appendUTF8(_ text: String) {
    var text = text
    text.withUTF8 { append(contentsOf: $0) }
  }

  /// Appends the bytes of a literal.
  @inline(__always)
  mutating func appendUTF8(_ text: StaticString) {
    text.withUTF8Buffer { append(contentsOf: $0) }
  }

  /// Appends `value` in decimal, as `String(value)` spells it.
  mutating func appendDecimal(_ value: Int64) {
    // The digits from the last, in a buffer on the stack: 19 of them at most, and a sign.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      var rest = value.magnitude
      var start = digits.count
      repeat {
        start -= 1
        digits[start] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
        rest /= 10
      } while rest > 0
      if value < 0 {
        start -= 1
        digits[start] = UInt8(ascii: "-")
      }
      append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
    }
  }

  /// Appends `value` in decimal, as `String(value)` spells it.
  @inline(__always)
  mutating func appendDecimal(_ value: Int) {
    appendDecimal(Int64(value))
  }
}
