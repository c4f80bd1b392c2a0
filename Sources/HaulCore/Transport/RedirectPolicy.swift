import Foundation

/// Decides whether haul follows one redirect, and how: the same rules for every transport
/// (docs/behaviour.md, "Redirects").
///
/// - Only `http`/`https` targets; an `https` hop is never followed to `http`.
/// - At most `maxRedirects` hops; the next one is refused (this also ends loops).
/// - Uploads: 301/302/303 fail (the body would be dropped or turned into a GET); 307/308
///   re-send the body from its first byte, to the same origin only.
/// - A hop to another origin (scheme, host or port differ from the transfer's original URL)
///   gets none of the transfer's own headers and no credentials; see `Exchange`.
package struct RedirectPolicy: Sendable, Hashable {
  /// The most hops followed for one exchange.
  package var maxRedirects: Int

  package init(maxRedirects: Int = 10) {
    self.maxRedirects = maxRedirects
  }

  /// What to do with one response.
  package enum Decision: Sendable, Hashable {
    /// Not a redirect: the response is final.
    case final
    /// Follow to `url` with `method`.
    case follow(url: URL, method: String)
    /// The redirect breaks a rule: the exchange fails with `redirect_refused`.
    case refuse(reason: String)
  }

  /// Decides for `head`, the answer to `method` on `current`; `hops` redirects were followed
  /// before it; `isUpload` when the request carried a body.
  package func decide(
    head: ResponseHead, current: URL, method: String, isUpload: Bool, hops: Int
  ) -> Decision {
    guard [301, 302, 303, 307, 308].contains(head.status),
      let location = head.value(for: "Location")?.trimmingASCIIWhitespace(), !location.isEmpty
    else { return .final }
    guard hops < maxRedirects else {
      return .refuse(reason: "more than \(maxRedirects) redirects")
    }
    guard let target = URL(string: location, relativeTo: current)?.absoluteURL,
      let scheme = target.scheme?.lowercased(), target.host != nil
    else { return .refuse(reason: "redirect to an invalid location") }
    guard scheme == "http" || scheme == "https" else {
      return .refuse(reason: "redirect to scheme \"\(scheme)\" (only http and https)")
    }
    if current.scheme?.lowercased() == "https" && scheme == "http" {
      return .refuse(reason: "redirect from https to http")
    }
    if isUpload {
      guard head.status == 307 || head.status == 308 else {
        return .refuse(reason: "upload answered by \(head.status)")
      }
      guard Origin(target) == Origin(current) else {
        return .refuse(reason: "upload redirected to another origin")
      }
      return .follow(url: target, method: method)
    }
    return .follow(url: target, method: head.status == 303 ? "GET" : method)
  }
}

/// The scheme, host and port of a URL: what decides whether a hop is "another origin".
package struct Origin: Sendable, Hashable, CustomStringConvertible {
  package var scheme: String
  package var host: String
  package var port: Int

  package init(_ url: URL) {
    scheme = url.scheme?.lowercased() ?? ""
    host = url.host?.lowercased() ?? ""
    port = url.port ?? (scheme == "https" ? 443 : 80)
  }

  package var description: String { "\(scheme)://\(host):\(port)" }
}
