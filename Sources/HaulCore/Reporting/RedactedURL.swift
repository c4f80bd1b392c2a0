/// URLs as haul prints them: without userinfo (`user:password@`), which may hold a secret.
///
/// Works on the text, so that it also applies to URLs that `Foundation.URL` would not parse.
/// Query strings are kept: SPEC.md does not treat them as secrets.
public enum RedactedURL {
  /// `url` with any `user[:password]@` removed from its authority.
  public static func string(_ url: String) -> String {
    guard let schemeEnd = url.range(of: "://") else { return url }
    let authorityStart = schemeEnd.upperBound
    let rest = url[authorityStart...]
    let authorityEnd =
      rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? url.endIndex
    let authority = url[authorityStart..<authorityEnd]
    guard let at = authority.lastIndex(of: "@") else { return url }
    return String(url[..<authorityStart]) + String(url[url.index(after: at)...])
  }
}
