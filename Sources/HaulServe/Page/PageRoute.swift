/// The answer to `GET /`: haul's own page (`PageHTML`). It holds no secret, so `AccessGuard`
/// lets it through without the token (its `Host` rule still holds, against DNS rebinding);
/// the headers keep the browser from loading or sending anything beyond this daemon, from
/// framing the page, and from keeping a copy.
enum PageRoute {
  /// The page's header fields: the policy allows the inline script and style and calls to
  /// this origin only.
  static let headers = [
    "Content-Type": "text/html; charset=utf-8",
    "Content-Security-Policy":
      "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
      + "connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
  ]

  /// The page's bytes, encoded once.
  static let body = Array(PageHTML.text.utf8)

  /// The page, with its header fields.
  static func response() -> HTTPResponse {
    HTTPResponse(status: 200, headers: headers, body: .bytes(body))
  }
}
