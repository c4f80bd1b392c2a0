import Foundation
import Synchronization

/// The run's state beside each transfer's own headers: the logins of a `.netrc` file and
/// one cookie jar (`--netrc`, `--cookies`, `--cookie-jar`).
///
/// `RedirectWalk` asks it for every hop, so both transports and both paths of the scheduler
/// (the engine thread, a task) send the same: a `.netrc` login as `Authorization: Basic` to
/// its own host only (also when a redirect leads there, and before any 401 asks for it, as
/// `wget --auth-no-challenge` and `curl -n` send it), and the cookies RFC 6265 lets go with
/// the hop's URL; each response's `Set-Cookie` fields (redirects' too) go into the jar.
///
/// Threading: the jar is behind a lock, as hops of many transfers (on the curl transport's
/// loop threads and in tasks) read and fill it at once. Logins and cookies are secrets: they
/// travel in request headers only and are never printed.
public final class HTTPState: Sendable {
  /// The `.netrc` logins, when given.
  public let netrc: Netrc?
  /// Whether cookies are sent and stored at all (`--cookies` or `--cookie-jar` given).
  public let usesCookies: Bool
  private let jar: Mutex<CookieJar>

  /// `netrc`: the logins to send, or none. `cookies`: the jar's first cookies (a loaded
  /// file's), or `nil` for no cookie handling at all.
  public init(netrc: Netrc?, cookies: [Cookie]?) {
    self.netrc = netrc
    usesCookies = cookies != nil
    jar = Mutex(CookieJar(cookies ?? []))
  }

  /// The cookies the run holds now, without those expired: what a jar file gets.
  public func cookies() -> [Cookie] {
    let now = Self.now()
    return jar.withLock { $0.live(at: now) }
  }

  /// Adds the hop's login and cookies to `hop`: the `.netrc` login of the hop's host unless
  /// the hop already carries an `Authorization` (the transfer's own, which goes to its own
  /// origin only), the `default` login only on `original`'s origin (the manifest's URL: a
  /// login for "any host" never follows a redirect elsewhere); the jar's cookies for the
  /// hop's URL, joined to a `Cookie` field the transfer gave.
  package func prepare(_ hop: inout TransferRequest, original: URL) {
    if let netrc, let host = hop.url.host(percentEncoded: false),
      !hop.headers.contains(where: { $0.hasName("Authorization") }),
      let login = netrc.login(for: host, allowDefault: Origin(hop.url) == Origin(original))
    {
      hop.headers.append(HTTPField("Authorization", login.basicAuthorization))
    }
    guard usesCookies else { return }
    hop.readsCookies = true
    let now = Self.now()
    let url = hop.url
    guard let value = jar.withLock({ $0.header(for: url, now: now) }) else { return }
    if let index = hop.headers.firstIndex(where: { $0.hasName("Cookie") }) {
      hop.headers[index].value += "; " + value
    } else {
      hop.headers.append(HTTPField("Cookie", value))
    }
  }

  /// Stores the cookies `head`, the answer from `url`, sets.
  package func receive(_ head: ResponseHead, from url: URL) {
    guard usesCookies, head.headers.contains(where: { $0.hasName("Set-Cookie") }) else { return }
    let now = Self.now()
    jar.withLock { $0.receive(head, from: url, now: now) }
  }

  static func now() -> Int64 { Int64(Date().timeIntervalSince1970) }
}
