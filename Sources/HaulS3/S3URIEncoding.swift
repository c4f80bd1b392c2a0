import HaulCore

/// Percent-encoding as AWS Signature Version 4 and S3 want it (`UriEncode` in the SigV4
/// documentation): every byte of the UTF-8 form except `A`–`Z`, `a`–`z`, `0`–`9`, `-`, `_`,
/// `.` and `~` becomes `%XX` with upper-case hex digits. Object keys keep their `/`.
///
/// This is stricter than RFC 3986 paths and queries (which allow `+`, `=`, `:`, `@`, ...
/// unencoded): S3 re-encodes what it receives this way before checking a signature, so
/// haul sends exactly the form it signs.
package enum S3URIEncoding {
  /// `text` with every reserved byte encoded, `/` included.
  package static func encode(_ text: String) -> String {
    encode(text, keepingSlash: false)
  }

  /// `key` encoded for a URL path: as `encode(_:)`, but `/` stays, separating segments.
  package static func encodePath(_ key: String) -> String {
    encode(key, keepingSlash: true)
  }

  /// `text` with `%XX` sequences turned back into bytes (invalid sequences stay as written,
  /// `+` is a plus); bytes that are not UTF-8 are replaced, as `String(decoding:)` does.
  /// Not Foundation's `removingPercentEncoding`, which drops a leading U+FEFF and so would
  /// sign another parameter than the one sent (the botocore comparison caught it).
  package static func decode(_ text: Substring) -> String {
    String(decoding: PercentDecoding.bytes(text), as: UTF8.self)
  }

  private static func encode(_ text: String, keepingSlash: Bool) -> String {
    let digits = Array("0123456789ABCDEF".utf8)
    var out = [UInt8]()
    out.reserveCapacity(text.utf8.count)
    for byte in text.utf8 {
      if isUnreserved(byte) || (keepingSlash && byte == UInt8(ascii: "/")) {
        out.append(byte)
      } else {
        out.append(UInt8(ascii: "%"))
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0x0f)])
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  private static func isUnreserved(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"),
      UInt8(ascii: "."), UInt8(ascii: "~"):
      true
    default:
      false
    }
  }
}
