/// The start of an error answer's body, kept so that S3's error code can be read from it:
/// S3 says why it refused a request only in the XML body (`<Code>RequestTimeout</Code>`),
/// and one of its 400s, `RequestTimeout`, is worth another try.
///
/// Only a 400 is captured (the one status whose meaning the code changes), and at most
/// `limit` bytes of it: an error page of any size costs one small buffer.
package struct S3ErrorBody: Sendable, Hashable {
  /// The bytes kept; at most `limit`.
  package private(set) var bytes: [UInt8] = []
  /// Bytes beyond this are dropped: S3's error documents fit in far less.
  package static let limit = 2048

  package init() {}

  /// Whether the body of an answer with `status` is worth capturing.
  package static func captures(status: Int) -> Bool { status == 400 }

  /// Keeps the first bytes of `chunk` that still fit.
  package mutating func append(_ chunk: UnsafeRawBufferPointer) {
    let room = Self.limit - bytes.count
    guard room > 0 else { return }
    bytes.append(contentsOf: chunk.prefix(room))
  }

  /// The S3 error code the body names (`<Code>…</Code>`), when it names one made of letters
  /// and digits.
  package var code: String? {
    let open = Array("<Code>".utf8)
    guard let start = Self.find(open, in: bytes[...]) else { return nil }
    let rest = bytes[(start + open.count)...]
    guard let end = Self.find(Array("</Code>".utf8), in: rest) else { return nil }
    let code = rest[..<end]
    guard !code.isEmpty, code.count <= 64,
      code.allSatisfy({ byte in
        (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A)
      })
    else { return nil }
    return String(decoding: code, as: UTF8.self)
  }

  /// The index of the first occurrence of `needle` in `haystack`.
  private static func find(_ needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
    guard haystack.count >= needle.count else { return nil }
    var index = haystack.startIndex
    while index + needle.count <= haystack.endIndex {
      if haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
      index += 1
    }
    return nil
  }

  /// S3 error codes retried like the HTTP status that usually carries them: `RequestTimeout`
  /// (a 400: the server gave up waiting for the request's bytes, as a 408 says). `SlowDown`
  /// comes as a 503, retried for its status already.
  package static let retryableCodes: Set<String> = ["RequestTimeout"]

  /// Whether the body names an error code worth retrying.
  package var isRetryable: Bool { code.map { Self.retryableCodes.contains($0) } ?? false }
}
