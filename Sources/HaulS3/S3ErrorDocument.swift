import HaulCore

/// Reads S3's error code from the start of an error answer's body: S3 says why it refused
/// a request only in the XML body (`<Code>RequestTimeout</Code>`), and one of its 400s,
/// `RequestTimeout`, is worth another try. The run's `ErrorBodyClassifier` under the CLI,
/// with `--s3` or without (a presigned URL of S3 is answered the same way).
///
/// Only a 400's body is read: the one status whose meaning the code changes.
package struct S3ErrorDocument: ErrorBodyClassifier {
  package init() {}

  package func captures(status: Int) -> Bool { status == 400 }

  package func reason(in body: [UInt8]) -> ErrorBodyReason? {
    Self.code(in: body).map {
      ErrorBodyReason(code: $0, retryable: Self.retryableCodes.contains($0))
    }
  }

  /// The S3 error code `body` names (`<Code>…</Code>`), when it names one made of letters
  /// and digits.
  package static func code(in body: [UInt8]) -> String? {
    let open = Array("<Code>".utf8)
    guard let start = find(open, in: body[...]) else { return nil }
    let rest = body[(start + open.count)...]
    guard let end = find(Array("</Code>".utf8), in: rest) else { return nil }
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
}
