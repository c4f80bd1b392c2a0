import Foundation

/// The hops of one exchange, as a value: the request to send now, and after each response
/// whether a redirect is followed (and to what) by `RedirectPolicy`'s rules. `Exchange`
/// drives it from a task; a transport's engine drives it on its own thread; both follow
/// redirects the same way.
///
/// URL credentials (`user:password@`) become an `Authorization: Basic` header of the
/// transfer's own, and the URL sent never carries them. The transfer's own headers go only
/// to its original origin: a hop to another scheme, host or port gets none. The request's
/// `conditions` go to every hop, after the headers.
///
/// A redirect to exactly the URL plus `/` is how servers answer a folder asked without its
/// trailing slash (h2o, whose index pages link folders so, Apache, nginx): `folder(after:of:)`
/// reads it, and a request that `stopsAtFolderRedirect` ends at it, for its answer to say
/// "folder". A request that `stopsAtRedirect` ends at any redirect it would follow.
///
/// With an `HTTPState` (`.netrc` logins, cookies), each hop gets the login of its own host
/// and the cookies that match its URL, and every response's `Set-Cookie` fields are stored
/// before the next hop is built.
package struct RedirectWalk: Sendable {
  /// The request to send next.
  package private(set) var hop: TransferRequest
  /// How many redirects were followed so far.
  package private(set) var hops = 0
  private let policy: RedirectPolicy
  private let originalURL: URL
  private let ownHeaders: [HTTPField]
  private let conditions: [HTTPField]
  private let state: HTTPState?

  package init(_ request: TransferRequest, maxRedirects: Int = 10, state: HTTPState? = nil) {
    policy = RedirectPolicy(maxRedirects: maxRedirects)
    (originalURL, ownHeaders) = Exchange.separateCredentials(request.url, headers: request.headers)
    conditions = request.conditions
    hop = request
    hop.url = originalURL
    hop.conditions = []
    hop.headers = conditions.isEmpty ? ownHeaders : ownHeaders + conditions
    self.state = state
    state?.prepare(&hop, original: originalURL)
  }

  /// Takes the answer to `hop`: returns `true` when `hop` now holds the redirect to send,
  /// `false` when `response` is final. Throws `redirect_refused` for a redirect the policy
  /// refuses.
  package mutating func follow(after response: TransferResponse) throws(TransferError) -> Bool {
    state?.receive(response.head, from: hop.url)
    if hop.stopsAtFolderRedirect, Self.folder(after: response.head, of: hop.url) != nil {
      return false
    }
    switch policy.decide(
      head: response.head, current: hop.url, method: hop.method, isUpload: hop.body != nil,
      hops: hops)
    {
    case .final:
      return false
    case .refuse(let reason):
      throw TransferError(.redirectRefused, reason)
    case .follow(let url, let method):
      if hop.stopsAtRedirect { return false }
      hops += 1
      hop.url = url
      if method != hop.method {
        hop.method = method
        hop.body = nil
      }
      hop.headers = (Origin(url) == Origin(originalURL) ? ownHeaders : []) + conditions
      state?.prepare(&hop, original: originalURL)
      return true
    }
  }

  /// The folder `url` names when `head` redirects it to exactly `url` plus `/` (the same
  /// origin and path, no query): `url` without its trailing slash is that folder. `nil`
  /// for any other answer.
  package static func folder(after head: ResponseHead, of url: URL) -> URL? {
    guard [301, 302, 303, 307, 308].contains(head.status),
      let location = head.value(for: "Location")?.trimmingASCIIWhitespace(),
      let target = URL(string: location, relativeTo: url)?.absoluteURL,
      Origin(target) == Origin(url), target.query(percentEncoded: true) == nil,
      url.query(percentEncoded: true) == nil,
      target.path(percentEncoded: false) == url.path(percentEncoded: false) + "/"
    else { return nil }
    return target
  }
}
