import Foundation

/// URLs as haul prints them: without userinfo (`user:password@`), which may hold a secret.
///
/// The one redactor: reports, events, error messages, shard hashes and resume states all take
/// their URL text from it. Works on the text, so that it also applies to URLs that
/// `Foundation.URL` would not parse. Query strings are kept: they are not treated as secrets
/// (docs/behaviour.md, "Secrets").
public enum RedactedURL {
  /// `url`'s text with any `user[:password]@` removed from its authority.
  public static func string(_ url: URL) -> String {
    string(url.absoluteString)
  }

  /// `url` with any `user[:password]@` removed from its authority.
  public static func string(_ url: String) -> String {
    let bytes = url.utf8
    var authorityStart: String.Index?
    var index = bytes.startIndex
    var matched = 0
    // Find the first "://" (the scheme's end), then an "@" before the authority ends.
    while index < bytes.endIndex {
      let byte = bytes[index]
      index = bytes.index(after: index)
      let expected: UInt8 = matched == 0 ? UInt8(ascii: ":") : UInt8(ascii: "/")
      matched = byte == expected ? matched + 1 : (byte == UInt8(ascii: ":") ? 1 : 0)
      if matched == 3 {
        authorityStart = index
        break
      }
    }
    guard let start = authorityStart else { return url }
    var at: String.Index?
    index = start
    while index < bytes.endIndex {
      let byte = bytes[index]
      if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") {
        break
      }
      if byte == UInt8(ascii: "@") { at = index }
      index = bytes.index(after: index)
    }
    guard let at else { return url }
    return String(url[..<start]) + String(url[bytes.index(after: at)...])
  }
}
