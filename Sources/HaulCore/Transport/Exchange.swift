import Foundation

/// Performs one request through a transport and follows its redirects by haul's own rules
/// (`RedirectWalk`, `RedirectPolicy`), identically for every transport.
package enum Exchange {
  /// Sends `request` and follows redirects, with `state`'s logins and cookies when given;
  /// returns the final response.
  ///
  /// Throws `redirect_refused` for a redirect the policy refuses, or whatever the transport
  /// or the sink threw. The sink sees each hop's head (it should refuse non-2xx bodies).
  package static func perform(
    _ request: TransferRequest, on transport: any Transport, sink: any ResponseSink,
    maxRedirects: Int = 10, state: HTTPState? = nil
  ) async throws(TransferError) -> TransferResponse {
    var walk = RedirectWalk(request, maxRedirects: maxRedirects, state: state)
    while true {
      let response = try await transport.perform(walk.hop, sink: sink)
      guard try walk.follow(after: response) else { return response }
    }
  }

  /// The URL without userinfo, and the headers with the userinfo as `Authorization: Basic`
  /// (unless the headers already hold an `Authorization`).
  static func separateCredentials(_ url: URL, headers: [HTTPField]) -> (URL, [HTTPField]) {
    guard url.user != nil || url.password != nil,
      var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
    else { return (url, headers) }
    let user = components.user ?? ""
    let password = components.password ?? ""
    components.user = nil
    components.password = nil
    let bare = components.url ?? url
    guard headers.value(for: "Authorization") == nil else { return (bare, headers) }
    let token = Data("\(user):\(password)".utf8).base64EncodedString()
    return (bare, headers + [HTTPField("Authorization", "Basic \(token)")])
  }
}
