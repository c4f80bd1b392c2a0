import Foundation

/// The rules for a manifest URL (`url`, each of `mirrors`, a bare URL line): scheme `http` or
/// `https` (any case, made lower case), a host, no control characters; parsed by Foundation's
/// `URL(string:)`.
enum ManifestURL {
  /// The URL in `string`, or why it is not allowed. `field` names it in the reason
  /// (`"url"`, `"mirrors" item 2`); the URL itself is never quoted (it may hold a password).
  static func parse(_ string: String, field: String) -> Result<URL, ManifestLineError> {
    guard let scheme = scheme(of: string) else {
      return .failure(.init("\(field) is not an http(s) URL"))
    }
    let lowered = scheme.lowercased()
    guard lowered == "http" || lowered == "https" else {
      return .failure(
        .init(
          "unsupported scheme \(ManifestText.quoted(String(scheme))) in \(field) (http or https only)"
        ))
    }
    if containsControlCharacter(string) {
      return .failure(.init("\(field) contains a control character"))
    }
    // Schemes are case-insensitive; their canonical form is lower case, which is what every
    // consumer (transports, redirect rules) can then rely on.
    let canonical = scheme == lowered ? string : lowered + string[scheme.endIndex...]
    guard let url = URL(string: canonical) else {
      return .failure(.init("\(field) is not a valid URL"))
    }
    guard let host = url.host(percentEncoded: true), !host.isEmpty else {
      return .failure(.init("\(field) has no host"))
    }
    return .success(url)
  }

  /// The scheme before the first `:` (`ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`), if any.
  static func scheme(of string: String) -> Substring? {
    guard let colon = string.utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
    let scheme = string[..<colon]
    guard let first = scheme.utf8.first, Self.isLetter(first),
      scheme.utf8.allSatisfy({
        Self.isLetter($0) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
          || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
      })
    else { return nil }
    return scheme
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

  private static func containsControlCharacter(_ string: String) -> Bool {
    var string = string
    return string.withUTF8 { bytes in
      for byte in bytes where byte < 0x20 || byte == 0x7F { return true }
      return false
    }
  }

  private static func isLetter(_ byte: UInt8) -> Bool {
    (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
  }
}
