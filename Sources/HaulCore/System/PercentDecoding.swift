/// `%XX` escapes turned back into bytes, for the names listings give and the query strings
/// SigV4 signs: each caller decides what bytes that are not UTF-8 become.
package enum PercentDecoding {
  /// The bytes of `text` with each `%XX` escape decoded; a `%` that starts no escape stays
  /// as written, and `+` is a plus.
  package static func bytes(_ text: Substring) -> [UInt8] {
    let bytes = Array(text.utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var index = 0
    while index < bytes.count {
      if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
        let high = Hex.value(of: bytes[index + 1]), let low = Hex.value(of: bytes[index + 2])
      {
        out.append(high << 4 | low)
        index += 3
      } else {
        out.append(bytes[index])
        index += 1
      }
    }
    return out
  }
}
