extension HTTPField {
  /// Header names that haul sets itself and a user may not: in a manifest's `headers` or
  /// through `--header`. Compared without regard to case.
  package static let namesOwnedByHaul: [String] = [
    "Host", "Content-Length", "Transfer-Encoding", "Range", "If-Range", "Connection", "Expect",
  ]

  /// Why this field may not be sent as an extra header given by the user, or `nil` when it
  /// may. The name must be an HTTP token (RFC 9110) and not one of `namesOwnedByHaul`; the
  /// value may hold no CR, LF or other control character except tab. The reason quotes the
  /// name but never the value, which may be a secret.
  package var userHeaderProblem: String? {
    if name.isEmpty { return "header name is empty" }
    if !name.utf8.allSatisfy(Self.isTokenByte) {
      if name.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }) {
        return "header name contains CR or LF"
      }
      return "header name \(ManifestText.quoted(name)) is not a valid HTTP token"
    }
    if let owned = Self.namesOwnedByHaul.first(where: { hasName($0) }) {
      return "header \(ManifestText.quoted(owned)) is set by haul and cannot be given"
    }
    if value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }) {
      return "value of header \(ManifestText.quoted(name)) contains CR or LF"
    }
    if value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
      return "value of header \(ManifestText.quoted(name)) contains a control character"
    }
    return nil
  }

  /// `tchar` from RFC 9110: letters, digits and ``!#$%&'*+-.^_`|~``.
  private static func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"):
      true
    default:
      "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }
  }
}
