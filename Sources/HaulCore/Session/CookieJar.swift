import Foundation

/// The cookies of a run, as a value: which to store from a response and which to send with
/// a request, by RFC 6265's rules (section 5.3 and 5.4) as curl applies them.
///
/// A cookie replaces the stored one of the same name, domain and path (keeping its place
/// in the order, its creation); one that arrives already expired removes it. The jar keeps
/// at most `limit` cookies: past it the oldest goes, so a server cannot grow it without
/// bound. `HTTPState` keeps one jar per run behind a lock.
public struct CookieJar: Sendable, Hashable {
  /// The most cookies kept at once.
  public static let limit = 3000

  /// The cookies in the order they were first set.
  public private(set) var cookies: [Cookie] = []

  public init(_ cookies: [Cookie] = []) {
    for cookie in cookies { store(cookie, now: Int64.min) }
  }

  /// Stores `cookie` (received at `now`): replaces the one of the same name, domain and
  /// path (RFC 6265, section 5.3, step 11), or removes it when `cookie` has expired.
  public mutating func store(_ cookie: Cookie, now: Int64) {
    let same = cookies.firstIndex {
      $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path
    }
    if cookie.isExpired(at: now) {
      if let same { cookies.remove(at: same) }
      return
    }
    if let same {
      cookies[same] = cookie
    } else {
      if cookies.count >= Self.limit {
        cookies.removeAll { $0.isExpired(at: now) }
        if cookies.count >= Self.limit { cookies.removeFirst() }
      }
      cookies.append(cookie)
    }
  }

  /// Stores what the `Set-Cookie` fields of `head` set, for a response from `url`.
  public mutating func receive(_ head: ResponseHead, from url: URL, now: Int64) {
    for field in head.headers where field.hasName("Set-Cookie") {
      for text in Cookie.splitJoined(field.value) {
        if let cookie = Cookie.parse(setCookie: text, from: url, now: now) {
          store(cookie, now: now)
        }
      }
    }
  }

  /// The cookies that go with a request to `url` at `now`, longest path first, then in the
  /// order they were set (RFC 6265, section 5.4, step 2).
  public func cookies(for url: URL, now: Int64) -> [Cookie] {
    let host = url.host(percentEncoded: false)?.lowercased() ?? ""
    let path = url.path(percentEncoded: true)
    let https = url.scheme?.lowercased() == "https"
    let matching = cookies.filter {
      $0.matches(host: host, path: path.isEmpty ? "/" : path, https: https, now: now)
    }
    // A stable sort: `sorted` is not guaranteed stable, so sort the positions.
    return matching.indices.sorted { left, right in
      let a = matching[left].path.utf8.count
      let b = matching[right].path.utf8.count
      return a != b ? a > b : left < right
    }.map { matching[$0] }
  }

  /// The value of the `Cookie` field for a request to `url` at `now`, or `nil` when no
  /// cookie goes with it.
  public func header(for url: URL, now: Int64) -> String? {
    let matching = cookies(for: url, now: now)
    guard !matching.isEmpty else { return nil }
    return matching.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
  }

  /// The cookies not yet expired at `now`, for the jar written at the end of a run.
  public func live(at now: Int64) -> [Cookie] {
    cookies.filter { !$0.isExpired(at: now) }
  }
}
