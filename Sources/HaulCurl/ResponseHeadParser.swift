import HaulCore

/// Builds a `ResponseHead` from the header lines libcurl hands the header callback, one
/// complete line (with its CRLF) per call.
///
/// A status line starts a new response, so interim `1xx` responses (`100 Continue`) are
/// dropped; the blank line ending a final response completes the head. Every byte of every
/// line counts against `maxBytes`, so a server cannot grow the block without bound.
///
/// Only the fields haul reads (`ResponseHead.fieldsRead`) are kept: a name is compared as
/// bytes before any `String` is made, so the other lines of a head cost a scan and no
/// allocation.
struct ResponseHeadParser {
  /// What one line did to the head being built.
  enum Step: Equatable {
    /// The line was taken in; more lines follow.
    case needMore
    /// The line ended an interim (`1xx`) response, which was dropped.
    case interim
    /// The line ended the final response's head.
    case complete(ResponseHead)
    /// The header block grew past `maxBytes`.
    case tooLarge
    /// The block ended without a status line.
    case malformed
  }

  let maxBytes: Int
  private(set) var totalBytes = 0
  private(set) var status: Int?
  private(set) var fields: [HTTPField] = []
  /// Whether the last field line was kept (a folded continuation line belongs to it).
  private var keptLast = false

  /// `ResponseHead.fieldsRead` as one run of bytes, for comparing names without making
  /// strings: each name's start in `keptBytes`, and a bit per name length present, so that
  /// most other lines are turned away by their name's length alone.
  private static let keptBytes: [UInt8] = ResponseHead.fieldsRead.flatMap { Array($0.utf8) }
  private static let keptStarts: [Int] = ResponseHead.fieldsRead.reduce(into: [0]) {
    $0.append($0.last! + $1.utf8.count)
  }
  private static let keptLengths: UInt64 = ResponseHead.fieldsRead.reduce(0) {
    $0 | (1 << UInt64(min($1.utf8.count, 63)))
  }

  init(maxBytes: Int) {
    self.maxBytes = maxBytes
    fields.reserveCapacity(16)
  }

  /// `bytes` as text, through the contiguous-buffer path of `String(decoding:)`.
  private static func text(_ bytes: Slice<UnsafeRawBufferPointer>) -> String {
    String(decoding: UnsafeRawBufferPointer(rebasing: bytes), as: UTF8.self)
  }

  mutating func consume(_ line: UnsafeRawBufferPointer) -> Step {
    totalBytes += line.count
    if totalBytes > maxBytes { return .tooLarge }
    guard let base = line.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
      return endOfBlock()
    }
    var end = line.count
    while end > 0, base[end - 1] == UInt8(ascii: "\r") || base[end - 1] == UInt8(ascii: "\n") {
      end -= 1
    }
    if end == 0 { return endOfBlock() }
    let content = line[0..<end]
    let first = base[0]
    if first == UInt8(ascii: "H"), end >= 5, base[1] == UInt8(ascii: "T"),
      base[2] == UInt8(ascii: "T"), base[3] == UInt8(ascii: "P"), base[4] == UInt8(ascii: "/")
    {
      status = Self.statusCode(ofStatusLine: content)
      fields.removeAll(keepingCapacity: true)
      return .needMore
    }
    if first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
      // An obsolete folded continuation of the previous field's value.
      if keptLast, !fields.isEmpty {
        let more = Self.text(Self.trimmed(content))
        fields[fields.count - 1].value += fields[fields.count - 1].value.isEmpty ? more : " " + more
      }
      return .needMore
    }
    var colon = 0
    while colon < end, base[colon] != UInt8(ascii: ":") { colon += 1 }
    guard colon < end else { return .needMore }
    let nameBytes = Self.trimmed(line[0..<colon])
    keptLast = Self.isKept(nameBytes)
    guard keptLast else { return .needMore }
    let name = Self.text(nameBytes)
    let value = Self.text(Self.trimmed(line[(colon + 1)..<end]))
    fields.append(HTTPField(name, value))
    return .needMore
  }

  /// `bytes` without leading and trailing spaces, tabs, CR and LF. Works on the bytes, so a
  /// header line costs two `String`s and no character-by-character trimming.
  private static func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<
    UnsafeRawBufferPointer
  > {
    var start = bytes.startIndex
    var end = bytes.endIndex
    while start < end, isWhitespace(bytes[start]) { start += 1 }
    while end > start, isWhitespace(bytes[end - 1]) { end -= 1 }
    return bytes[start..<end]
  }

  /// Whether `name` is one of `ResponseHead.fieldsRead`, ASCII case ignored.
  private static func isKept(_ name: Slice<UnsafeRawBufferPointer>) -> Bool {
    let count = name.count
    guard count < 64, keptLengths & (1 << UInt64(count)) != 0,
      let base = name.base.baseAddress
    else { return false }
    let bytes = base.assumingMemoryBound(to: UInt8.self) + name.startIndex
    return keptBytes.withUnsafeBufferPointer { kept in
      keptStarts.withUnsafeBufferPointer { starts in
        var candidate = 0
        while candidate + 1 < starts.count {
          let start = starts[candidate]
          candidate += 1
          guard starts[candidate] - start == count else { continue }
          var index = 0
          while index < count {
            let byte = bytes[index]
            let lower = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            guard lower == kept[start + index] else { break }
            index += 1
          }
          if index == count { return true }
        }
        return false
      }
    }
  }

  private static func isWhitespace(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
      || byte == UInt8(ascii: "\n")
  }

  /// The head as received so far, with `status` standing in for a missing status line.
  func head(status fallback: Int) -> ResponseHead {
    ResponseHead(status: status ?? fallback, headers: fields)
  }

  private mutating func endOfBlock() -> Step {
    guard let status else { return .malformed }
    if (100..<200).contains(status) {
      self.status = nil
      fields.removeAll(keepingCapacity: true)
      return .interim
    }
    return .complete(ResponseHead(status: status, headers: fields))
  }

  /// The three-digit code after the protocol name (`HTTP/1.1 200 OK`, `HTTP/2 404`).
  private static func statusCode(ofStatusLine line: Slice<UnsafeRawBufferPointer>) -> Int? {
    guard let space = line.firstIndex(of: UInt8(ascii: " ")) else { return nil }
    let digits = line[(space + 1)...].prefix(while: { $0 != UInt8(ascii: " ") })
    guard digits.count == 3, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
    return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
  }
}
