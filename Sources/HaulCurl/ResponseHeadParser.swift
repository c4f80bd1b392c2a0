import HaulCore

/// Builds a `ResponseHead` from the header lines libcurl hands the header callback, one
/// complete line (with its CRLF) per call.
///
/// A status line starts a new response, so an interim `1xx` response ends as a head of its
/// own (`100 Continue` as none); the blank line ending a final response completes the head. Every byte of every
/// line counts against `maxBytes`, so a server cannot grow the block without bound.
///
/// Only the fields haul reads (`ResponseHead.fieldsRead`) are kept: a name is compared as
/// bytes before any `String` is made, so the other lines of a head cost a scan and no
/// allocation. `Set-Cookie` is kept besides them when the request reads cookies
/// (`TransferRequest.readsCookies`).
struct ResponseHeadParser {
  /// What one line did to the head being built.
  enum Step: Equatable {
    /// The line was taken in; more lines follow.
    case needMore
    /// The line ended an interim (`1xx`) response: its head, or `nil` for `100 Continue`,
    /// which only libcurl acts on.
    case interim(ResponseHead?)
    /// The line ended the final response's head.
    case complete(ResponseHead)
    /// The header block grew past `maxBytes`.
    case tooLarge
    /// The block ended without a status line.
    case malformed
  }

  let maxBytes: Int
  /// Whether `Set-Cookie` fields are kept too.
  let keepsCookies: Bool
  private(set) var totalBytes = 0
  private(set) var status: Int?
  /// Whether the status line names HTTP/2 or later (`HTTP/2 200`): one connection carries
  /// several exchanges at once.
  private(set) var multiplexed = false
  private(set) var fields: [HTTPField] = []
  /// Whether the last field line was kept (a folded continuation line belongs to it).
  private var keptLast = false

  init(maxBytes: Int, keepsCookies: Bool = false) {
    self.maxBytes = maxBytes
    self.keepsCookies = keepsCookies
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
      multiplexed = end >= 6 && (0x32...0x39).contains(base[5])
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
    keptLast =
      Self.isKept(nameBytes)
      || (keepsCookies && nameBytes.count == 10 && Self.equalsIgnoringCase(nameBytes, "set-cookie"))
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

  /// Whether `name` is one of `ResponseHead.fieldsRead`, ASCII case ignored. The list is
  /// spelled out by length and first letter, so that a line haul does not read (`Server`,
  /// `Date`, `Connection`) is turned away after one or two comparisons; a test checks that
  /// the two lists agree.
  static func isKept(_ name: Slice<UnsafeRawBufferPointer>) -> Bool {
    guard let first = name.first else { return false }
    let initial = first.asciiLowercased
    let candidates: [StaticString]
    switch (name.count, initial) {
    case (4, UInt8(ascii: "e")): candidates = ["etag"]
    case (4, UInt8(ascii: "l")): candidates = ["link"]
    case (12, UInt8(ascii: "x")): candidates = ["x-error-code"]
    case (15, UInt8(ascii: "x")): candidates = ["x-error-message"]
    case (13, UInt8(ascii: "x")): candidates = ["x-repo-commit", "x-linked-etag", "x-linked-size"]
    case (6, UInt8(ascii: "d")): candidates = ["digest"]
    case (8, UInt8(ascii: "l")): candidates = ["location"]
    case (11, UInt8(ascii: "r")): candidates = ["retry-after", "repr-digest"]
    case (11, UInt8(ascii: "x")): candidates = ["x-goog-hash"]
    case (11, UInt8(ascii: "t")): candidates = ["tus-version"]
    case (12, UInt8(ascii: "u")): candidates = ["upload-limit"]
    case (13, UInt8(ascii: "u")): candidates = ["upload-offset", "upload-length"]
    case (13, UInt8(ascii: "t")): candidates = ["tus-extension"]
    case (15, UInt8(ascii: "u")): candidates = ["upload-complete"]
    case (22, UInt8(ascii: "t")): candidates = ["tus-checksum-algorithm"]
    case (28, UInt8(ascii: "u")): candidates = ["upload-draft-interop-version"]
    case (12, UInt8(ascii: "c")): candidates = ["content-type"]
    case (13, UInt8(ascii: "c")): candidates = ["content-range"]
    case (13, UInt8(ascii: "l")): candidates = ["last-modified"]
    case (14, UInt8(ascii: "c")): candidates = ["content-length", "content-digest"]
    case (16, UInt8(ascii: "c")): candidates = ["content-encoding"]
    case (17, UInt8(ascii: "t")): candidates = ["transfer-encoding"]
    case (21, UInt8(ascii: "x")): candidates = ["x-amz-checksum-sha256"]
    default: return false
    }
    return candidates.contains { equalsIgnoringCase(name, $0) }
  }

  /// Whether `bytes` spell `lowercased` (all lower case), ASCII case ignored.
  static func equalsIgnoringCase(
    _ bytes: Slice<UnsafeRawBufferPointer>, _ lowercased: StaticString
  ) -> Bool {
    lowercased.withUTF8Buffer { wanted in
      guard wanted.count == bytes.count else { return false }
      var index = 0
      for byte in bytes {
        guard byte.asciiLowercased == wanted[index] else { return false }
        index += 1
      }
      return true
    }
  }

  private static func isWhitespace(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
      || byte == UInt8(ascii: "\n")
  }

  /// The head as received so far, with `status` standing in for a missing status line.
  func head(status fallback: Int) -> ResponseHead {
    ResponseHead(status: status ?? fallback, headers: fields, multiplexed: multiplexed)
  }

  private mutating func endOfBlock() -> Step {
    guard let status else { return .malformed }
    if (100..<200).contains(status) {
      let interim =
        status == 100
        ? nil : ResponseHead(status: status, headers: fields, multiplexed: multiplexed)
      self.status = nil
      fields.removeAll(keepingCapacity: true)
      return .interim(interim)
    }
    return .complete(ResponseHead(status: status, headers: fields, multiplexed: multiplexed))
  }

  /// The three-digit code after the protocol name (`HTTP/1.1 200 OK`, `HTTP/2 404`).
  private static func statusCode(ofStatusLine line: Slice<UnsafeRawBufferPointer>) -> Int? {
    guard let space = line.firstIndex(of: UInt8(ascii: " ")) else { return nil }
    let digits = line[(space + 1)...].prefix(while: { $0 != UInt8(ascii: " ") })
    guard digits.count == 3, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
    return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
  }
}
