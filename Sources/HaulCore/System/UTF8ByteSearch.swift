import Foundation

extension StringProtocol {
  /// Whether the text's UTF-8 holds `byte`: `memchr` over the contiguous bytes a native
  /// string has, as listed names are checked for `/`, `%` and `&` once or more each.
  package func utf8Contains(_ byte: UInt8) -> Bool {
    let found = utf8.withContiguousStorageIfAvailable { bytes -> Bool in
      guard let base = bytes.baseAddress, !bytes.isEmpty else { return false }
      return memchr(base, Int32(byte), bytes.count) != nil
    }
    return found ?? utf8.contains(byte)
  }
}

extension String {
  /// Whether the text is `.` or `..`, read from its UTF-8 length and bytes rather than
  /// compared as strings.
  package var isDotSegment: Bool {
    let bytes = utf8
    let count = bytes.count
    return (count == 1 || count == 2) && bytes.allSatisfy { $0 == UInt8(ascii: ".") }
  }
}
