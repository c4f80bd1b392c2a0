import Foundation

/// URLs as haul prints them: without userinfo (`user:password@`), which may hold a secret.
///
/// The one redactor: reports, events, error messages, shard hashes and resume states all take
/// their URL text from it. Works on the text, so that it also applies to URLs that
/// `Foundation.URL` would not parse. Query strings are kept: they are not treated as secrets
/// (docs/behaviour.md, "Secrets").
package enum RedactedURL {
  /// `url`'s text with any `user[:password]@` removed from its authority.
  package static func string(_ url: URL) -> String {
    string(url.absoluteString)
  }

  /// `url` with any `user[:password]@` removed from its authority. Scans the bytes once;
  /// a URL without `@` (nearly all) is returned as it is, without a copy.
  package static func string(_ url: String) -> String {
    // Without an `@` anywhere (found by `memchr`) there is no userinfo to look for.
    guard url.utf8Contains(UInt8(ascii: "@")) else { return url }
    var text = url
    let cut: (Int, Int)? = text.withUTF8 { bytes in
      // The authority starts after the first "://" and ends at "/", "?" or "#".
      var index = 0
      var start: Int?
      while index + 2 < bytes.count {
        if bytes[index] == UInt8(ascii: ":"), bytes[index + 1] == UInt8(ascii: "/"),
          bytes[index + 2] == UInt8(ascii: "/")
        {
          start = index + 3
          break
        }
        index += 1
      }
      guard let start else { return nil }
      var at: Int?
      index = start
      while index < bytes.count {
        let byte = bytes[index]
        if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") {
          break
        }
        if byte == UInt8(ascii: "@") { at = index }
        index += 1
      }
      return at.map { (start, $0 + 1) }
    }
    guard let (start, end) = cut else { return url }
    var bytes = Array(url.utf8)
    bytes.removeSubrange(start..<end)
    return String(decoding: bytes, as: UTF8.self)
  }
}
