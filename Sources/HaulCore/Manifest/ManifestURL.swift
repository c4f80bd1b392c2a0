import Foundation

/// The rules for a manifest URL (`url`, each of `mirrors`, a bare URL line): scheme `http` or
/// `https` (any case, made lower case), a host, a port (when one is written) from 1 to 65535,
/// no control characters; parsed by Foundation's `URL(string:)`. Also the URLs of the
/// manifest's extra schemes (`ManifestURLScheme`), mapped as the scheme says.
enum ManifestURL {
  /// The URL in `string`, or why it is not allowed. `field` names it in the reason
  /// (`"url"`, `"mirrors" item 2`); the URL itself is never quoted (it may hold a password).
  /// A URL of one of `schemes` becomes the URL that scheme maps it to.
  static func parse(
    _ string: String, field: String, schemes: ManifestURLSchemes = ManifestURLSchemes()
  ) -> Result<URL, ManifestLineError> {
    if isPlain(string) { return parsePlain(string, field: field) }
    if let scheme = schemes.scheme(of: string) { return scheme.url(for: string, field: field) }
    var string = string
    let shape = string.withUTF8 { Shape(of: $0) }
    guard let schemeLength = shape.schemeLength else {
      return .failure(.init("\(field) is not an http(s) URL"))
    }
    // Schemes are case-insensitive; their canonical form is lower case, which is what every
    // consumer (transports, redirect rules) can then rely on. Most URLs are written so.
    var canonical = string
    if !shape.isLowerCaseHTTP {
      let schemeEnd = string.utf8.index(string.utf8.startIndex, offsetBy: schemeLength)
      let scheme = string[..<schemeEnd]
      let lowered = scheme.lowercased()
      guard lowered == "http" || lowered == "https" else {
        return .failure(
          .init(
            "unsupported scheme \(ManifestText.quoted(String(scheme))) in \(field) "
              + "(http or https only)"))
      }
      canonical = lowered + string[schemeEnd...]
    }
    if shape.hasControlCharacter {
      return .failure(.init("\(field) contains a control character"))
    }
    guard let url = URL(string: canonical) else {
      return .failure(.init("\(field) is not a valid URL"))
    }
    if !shape.hasPlainHost {
      guard let host = url.host(percentEncoded: true), !host.isEmpty else {
        return .failure(.init("\(field) has no host"))
      }
    }
    if let port = writtenPort(canonical), !isPort(port) {
      // A port outside TCP's range would fail every attempt (as `protocol`) and be retried.
      // Only digits are quoted: whatever else stands there is not shown.
      let shown =
        port.allSatisfy(isDigit) ? " \(String(decoding: port.prefix(20), as: UTF8.self))" : ""
      return .failure(.init("\(field) has port\(shown) outside 1 to 65535"))
    }
    return .success(url)
  }

  /// The URL in `string`, which `isPlain` accepts: such a URL meets every rule of `parse`
  /// by its shape (a lower-case scheme, a plain host, a port in range, no control
  /// character), so only Foundation's parse is left to make.
  static func parsePlain(_ string: String, field: String) -> Result<URL, ManifestLineError> {
    guard let url = URL(string: string) else {
      return .failure(.init("\(field) is not a valid URL"))
    }
    return .success(url)
  }

  /// Whether `url`'s host is an IPv6 literal (`[::1]`), which only such a host's `:` shows.
  static func hasIPv6LiteralHost(_ url: URL) -> Bool {
    url.host(percentEncoded: true)?.contains(":") ?? false
  }

  /// Whether `digits` is a decimal port from 1 to 65535.
  private static func isPort(_ digits: [UInt8]) -> Bool {
    guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy(isDigit) else { return false }
    let port = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    return (1...65535).contains(port)
  }

  /// The bytes of the port written in `string`'s authority, as written, or `nil` when none
  /// is (no `:`, or `:` with nothing after it, which means the default port). Read as bytes:
  /// every delimiter is ASCII, and this runs for every URL of a manifest.
  static func writtenPort(_ string: String) -> [UInt8]? {
    var string = string
    return string.withUTF8 { bytes -> [UInt8]? in
      guard let separator = firstIndex(of: "://", in: bytes) else { return nil }
      let start = separator + 3
      var end = start
      while end < bytes.count, bytes[end] != UInt8(ascii: "/"), bytes[end] != UInt8(ascii: "?"),
        bytes[end] != UInt8(ascii: "#")
      {
        end += 1
      }
      // User info ends at the last `@`; an IPv6 literal ends at `]`.
      var host = start
      for index in start..<end where bytes[index] == UInt8(ascii: "@") { host = index + 1 }
      if host < end, bytes[host] == UInt8(ascii: "[") {
        guard let close = (host..<end).first(where: { bytes[$0] == UInt8(ascii: "]") }) else {
          return nil
        }
        host = close + 1
      }
      guard let colon = (host..<end).first(where: { bytes[$0] == UInt8(ascii: ":") }),
        colon + 1 < end
      else { return nil }
      return Array(bytes[(colon + 1)..<end])
    }
  }

  /// The offset of the first occurrence of the ASCII `needle` in `bytes`.
  private static func firstIndex(of needle: StaticString, in bytes: UnsafeBufferPointer<UInt8>)
    -> Int?
  {
    let count = needle.utf8CodeUnitCount
    guard bytes.count >= count else { return nil }
    return needle.withUTF8Buffer { needle in
      (0...(bytes.count - count)).first { offset in
        (0..<count).allSatisfy { bytes[offset + $0] == needle[$0] }
      }
    }
  }

  /// Whether `string` is a URL of the plainest kind, which `parse` is sure to accept: `http`
  /// or `https` in lower case, `://`, a host of letters, digits, `.` and `-` that starts
  /// with a letter or digit, an optional port of at most five digits (1 to 65535), then
  /// nothing or a path and query of RFC 3986 characters (`%` followed by two hex digits),
  /// with no fragment. Such a string is a valid RFC 3986 URI with a non-empty host, a port
  /// (if any) from 1 to 65535 and nothing to percent-encode, so validation can check it
  /// without building a `URL`.
  static func isPlain(_ string: String) -> Bool {
    var contiguous = string  // shares `string`'s storage: native strings are contiguous UTF-8
    return contiguous.withUTF8 { bytes in
      guard bytes.count >= 8, bytes[0] == UInt8(ascii: "h"), bytes[1] == UInt8(ascii: "t"),
        bytes[2] == UInt8(ascii: "t"), bytes[3] == UInt8(ascii: "p")
      else { return false }
      var index = bytes[4] == UInt8(ascii: "s") ? 5 : 4
      guard bytes[index] == UInt8(ascii: ":"), bytes[index + 1] == UInt8(ascii: "/"),
        bytes[index + 2] == UInt8(ascii: "/")
      else { return false }
      index += 3
      guard index < bytes.count, isLetter(bytes[index]) || isDigit(bytes[index]) else {
        return false
      }
      while index < bytes.count,
        isLetter(bytes[index]) || isDigit(bytes[index]) || bytes[index] == UInt8(ascii: ".")
          || bytes[index] == UInt8(ascii: "-")
      {
        index += 1
      }
      if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
        index += 1
        var port = 0
        let portStart = index
        while index < bytes.count, isDigit(bytes[index]), index - portStart < 5 {
          port = port * 10 + Int(bytes[index] - UInt8(ascii: "0"))
          index += 1
        }
        guard index > portStart, port >= 1, port <= 65535 else { return false }
      }
      guard
        index == bytes.count || bytes[index] == UInt8(ascii: "/")
          || bytes[index] == UInt8(ascii: "?")
      else { return false }
      while index < bytes.count {
        let byte = bytes[index]
        if byte == UInt8(ascii: "%") {
          guard index + 2 < bytes.count, isHexDigit(bytes[index + 1]),
            isHexDigit(bytes[index + 2])
          else { return false }
          index += 3
          continue
        }
        guard isPathOrQueryByte(byte) else { return false }
        index += 1
      }
      return true
    }
  }

  /// The default name (`ManifestPath.defaultName`) of a URL that `isPlain` accepts, read
  /// from its percent-encoded path as `URL.path(percentEncoded:)` gives it: from the first
  /// `/` after the authority up to the query, empty when there is none.
  static func defaultNameOfPlain(_ string: String) -> Result<String, ManifestLineError> {
    var contiguous = string
    return contiguous.withUTF8 { bytes in
      var start = 0
      while start < bytes.count, bytes[start] != UInt8(ascii: ":") { start += 1 }
      start += 3
      while start < bytes.count, bytes[start] != UInt8(ascii: "/"),
        bytes[start] != UInt8(ascii: "?")
      {
        start += 1
      }
      if start >= bytes.count || bytes[start] != UInt8(ascii: "/") { start = bytes.count }
      var end = start
      while end < bytes.count, bytes[end] != UInt8(ascii: "?") { end += 1 }
      return ManifestPath.defaultName(
        percentEncodedPath: UnsafeBufferPointer(rebasing: bytes[start..<end]))
    }
  }

  /// The length of the scheme before the first `:` in `bytes`
  /// (`ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`), or `nil` when there is none.
  static func schemeLength(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
    guard let first = bytes.first, isLetter(first) else { return nil }
    for index in 1..<bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: ":") { return index }
      guard
        isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "+")
          || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
      else { return nil }
    }
    return nil
  }

  /// The identity of an upload's target for duplicate detection: scheme and host in lower
  /// case, the port (default filled in), path and query; user info and fragment left out.
  static func destinationKey(_ url: URL) -> String {
    let scheme = (url.scheme ?? "").lowercased()
    let host = (url.host(percentEncoded: true) ?? "").lowercased()
    let port = url.port ?? (scheme == "https" ? 443 : 80)
    var path = url.path(percentEncoded: true)
    if path.isEmpty { path = "/" }
    let query = url.query(percentEncoded: true).map { "?" + $0 } ?? ""
    return "\(scheme)://\(host):\(port)\(path)\(query)"
  }

  /// What one pass over a URL's bytes tells before Foundation parses it.
  private struct Shape {
    /// See `schemeLength(in:)`.
    var schemeLength: Int?
    /// The scheme is `http` or `https` as written, so the string is already canonical.
    var isLowerCaseHTTP = false
    /// A byte below 0x20, or 0x7F, anywhere.
    var hasControlCharacter = false
    /// The scheme's `:` is followed by `//` and an authority (up to the next `/`, `?`, `#`
    /// or the end) of only letters, digits, `.`, `-` and `:`, starting with a letter or
    /// digit: no user info and no IP literal, so the host is that first run up to any `:`,
    /// and not empty. (Foundation is asked only when this does not hold.)
    var hasPlainHost = false

    init(of bytes: UnsafeBufferPointer<UInt8>) {
      for byte in bytes where byte < 0x20 || byte == 0x7F {
        hasControlCharacter = true
        break
      }
      guard let schemeLength = ManifestURL.schemeLength(in: bytes) else { return }
      self.schemeLength = schemeLength
      isLowerCaseHTTP =
        (schemeLength == 4 || (schemeLength == 5 && bytes[4] == UInt8(ascii: "s")))
        && bytes[0] == UInt8(ascii: "h") && bytes[1] == UInt8(ascii: "t")
        && bytes[2] == UInt8(ascii: "t") && bytes[3] == UInt8(ascii: "p")
      var index = schemeLength + 1
      guard index + 2 < bytes.count, bytes[index] == UInt8(ascii: "/"),
        bytes[index + 1] == UInt8(ascii: "/")
      else { return }
      index += 2
      guard ManifestURL.isLetter(bytes[index]) || ManifestURL.isDigit(bytes[index]) else {
        return
      }
      while index < bytes.count {
        let byte = bytes[index]
        if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") {
          break
        }
        guard
          ManifestURL.isLetter(byte) || ManifestURL.isDigit(byte)
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ":")
        else { return }
        index += 1
      }
      hasPlainHost = true
    }
  }

  /// RFC 3986 `pchar` other than `%`, and `/` and `?`: what may stand unencoded in a path
  /// or query. (`&` to `;` holds `&'()*+,-./`, the digits and `:`; `?` to `Z` holds `?`, `@`
  /// and the capitals.)
  private static func isPathOrQueryByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&")...UInt8(ascii: ";"),
      UInt8(ascii: "="), UInt8(ascii: "?")...UInt8(ascii: "Z"), UInt8(ascii: "_"),
      UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "~"):
      true
    default:
      false
    }
  }

  private static func isHexDigit(_ byte: UInt8) -> Bool {
    isDigit(byte) || ((byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "f"))
  }

  private static func isLetter(_ byte: UInt8) -> Bool {
    (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
  }

  private static func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
  }
}
