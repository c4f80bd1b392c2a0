import Foundation

/// Performs one request through a transport and follows its redirects by haul's own rules
/// (`RedirectPolicy`), identically for every transport.
///
/// URL credentials (`user:password@`) become an `Authorization: Basic` header of the
/// transfer's own, and the URL given to the transport never carries them. The transfer's own
/// headers go only to its original origin: a hop to another scheme, host or port gets none.
public enum Exchange {
  /// Sends `request` and follows redirects; returns the final response.
  ///
  /// Throws `redirect_refused` for a redirect the policy refuses, or whatever the transport
  /// or the sink threw. The sink sees each hop's head (it should refuse non-2xx bodies).
  public static func perform(
    _ request: TransferRequest, on transport: any Transport, sink: any ResponseSink,
    maxRedirects: Int = 10
  ) async throws(TransferError) -> TransferResponse {
    let policy = RedirectPolicy(maxRedirects: maxRedirects)
    let (originalURL, ownHeaders) = separateCredentials(request.url, headers: request.headers)
    var hop = request
    hop.url = originalURL
    var hops = 0
    while true {
      // The first hop is the original URL; only a redirect needs the origins compared.
      hop.headers = hops == 0 || Origin(hop.url) == Origin(originalURL) ? ownHeaders : []
      let response = try await transport.perform(hop, sink: sink)
      switch policy.decide(
        head: response.head, current: hop.url, method: hop.method, isUpload: hop.body != nil,
        hops: hops)
      {
      case .final:
        return response
      case .refuse(let reason):
        throw TransferError(.redirectRefused, reason)
      case .follow(let url, let method):
        hops += 1
        hop.url = url
        if method != hop.method {
          hop.method = method
          hop.body = nil
        }
      }
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

  /// `url` as text without userinfo, for reports, events and messages.
  public static func redacted(_ url: URL) -> String {
    guard url.user != nil || url.password != nil,
      var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
    else { return url.absoluteString }
    components.user = nil
    components.password = nil
    return components.string ?? url.absoluteString
  }
}
