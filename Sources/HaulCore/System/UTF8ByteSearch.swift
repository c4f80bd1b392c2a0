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

extension String {
  /// `self` followed by `other`, as `+` gives it, made at once at its final length: `+`
  /// grows a copy of `self` (or appends to a small string) and costs two or three times
  /// as much, and a listed file's URL, relative path and path are each made so.
  package func joined(with other: String) -> String {
    var (head, tail) = (self, other)
    return head.withUTF8 { first in
      tail.withUTF8 { second in
        String(unsafeUninitializedCapacity: first.count + second.count) { buffer in
          let middle = buffer.initialize(fromContentsOf: first)
          let end = UnsafeMutableBufferPointer(rebasing: buffer[middle...])
            .initialize(fromContentsOf: second)
          return middle + end
        }
      }
    }
  }
}
