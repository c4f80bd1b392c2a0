import Foundation

/// One stored cookie (RFC 6265, section 5.3): what a `Set-Cookie` field or a line of a
/// Netscape cookie file says, with the domain it belongs to resolved.
///
/// Cookies are secrets: printing one shows its name and domain, never its value.
public struct Cookie: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
  public var name: String
  public var value: String
  /// The host (`hostOnly`) or the domain (and its subdomains) the cookie goes to;
  /// lower case, without a leading dot.
  public var domain: String
  /// Whether the cookie goes to exactly `domain` and not its subdomains: it was set without
  /// a `Domain` attribute (a Netscape file's include-subdomains flag `FALSE`).
  public var hostOnly: Bool
  /// The path the request's path must match (RFC 6265, section 5.1.4).
  public var path: String
  /// Whether the cookie goes over `https` only.
  public var secure: Bool
  /// Whether the cookie was marked `HttpOnly` (kept for the file written back; it changes
  /// nothing for haul, which runs no scripts).
  public var httpOnly: Bool
  /// When the cookie expires, in seconds since 1970; `nil` for a session cookie, which lives
  /// as long as the run (and is written to a jar with expiry 0, as curl writes it).
  public var expires: Int64?

  public init(
    name: String, value: String, domain: String, hostOnly: Bool, path: String = "/",
    secure: Bool = false, httpOnly: Bool = false, expires: Int64? = nil
  ) {
    self.name = name
    self.value = value
    self.domain = domain
    self.hostOnly = hostOnly
    self.path = path
    self.secure = secure
    self.httpOnly = httpOnly
    self.expires = expires
  }

  public var description: String { "Cookie(\(name) for \(domain)\(path))" }
  public var debugDescription: String { description }

  /// Whether the cookie's expiry has passed at `now` (seconds since 1970).
  public func isExpired(at now: Int64) -> Bool {
    guard let expires else { return false }
    return expires <= now
  }

  /// Whether the cookie goes with a request to `host` (lower case), `path` (the URL's
  /// path, `/` when empty), over `https` or not, at `now`: RFC 6265, section 5.4, step 1.
  public func matches(host: String, path requestPath: String, https: Bool, now: Int64) -> Bool {
    if secure && !https { return false }
    if isExpired(at: now) { return false }
    if hostOnly ? host != domain : !Cookie.domainMatches(host, domain) { return false }
    return Cookie.pathMatches(requestPath, path)
  }

  /// RFC 6265, section 5.1.3: `host` equals `domain`, or ends with `.` + `domain` and is not
  /// an IP address. Both lower case.
  public static func domainMatches(_ host: String, _ domain: String) -> Bool {
    if host == domain { return true }
    guard host.hasSuffix("." + domain), !isIPAddress(host) else { return false }
    return true
  }

  /// RFC 6265, section 5.1.4: `cookiePath` equals `requestPath`, or is a prefix of it that
  /// ends with `/` or is followed by `/` in it.
  public static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
    if requestPath == cookiePath { return true }
    guard requestPath.hasPrefix(cookiePath) else { return false }
    if cookiePath.hasSuffix("/") { return true }
    return requestPath.utf8.dropFirst(cookiePath.utf8.count).first == UInt8(ascii: "/")
  }

  /// RFC 6265, section 5.1.4: the default path of a cookie set by a response to a URL with
  /// path `requestPath`: up to, not including, its last `/`; `/` when that leaves nothing.
  public static func defaultPath(_ requestPath: String) -> String {
    guard requestPath.hasPrefix("/"), let slash = requestPath.lastIndex(of: "/"),
      slash != requestPath.startIndex
    else { return "/" }
    return String(requestPath[..<slash])
  }

  /// Whether `host` is an IPv4 or IPv6 address rather than a name.
  static func isIPAddress(_ host: String) -> Bool {
    if host.contains(":") { return true }
    let parts = host.split(separator: ".", omittingEmptySubsequences: false)
    return parts.count == 4
      && parts.allSatisfy { part in
        !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCIIDigit)
      }
  }
}

extension Character {
  fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

extension Cookie {
  /// The longest name plus value accepted, in bytes: RFC 6265, section 6.1 asks for at least
  /// 4096 per cookie, and curl refuses longer ones.
  public static let maxBytes = 4096

  /// The cookie one `Set-Cookie` value sets, received from `url` at `now` (RFC 6265,
  /// section 5.2 and 5.3), or `nil` when it must be ignored: no `=`, an empty name, too
  /// long, a `Domain` the host does not match (or a bare top-level name), or `Secure` over
  /// plain `http` (as curl and RFC 6265bis refuse it).
  public static func parse(setCookie text: String, from url: URL, now: Int64) -> Cookie? {
    var parts = text.split(separator: ";", omittingEmptySubsequences: false)[...]
    guard let pair = parts.popFirst(), let equals = pair.firstIndex(of: "=") else { return nil }
    let name = String(pair[..<equals]).trimmingASCIIWhitespace()
    let value = String(pair[pair.index(after: equals)...]).trimmingASCIIWhitespace()
    guard !name.isEmpty, name.utf8.count + value.utf8.count <= maxBytes else { return nil }
    let host = url.host(percentEncoded: false)?.lowercased() ?? ""
    let https = url.scheme?.lowercased() == "https"
    var cookie = Cookie(
      name: name, value: value, domain: host, hostOnly: true,
      path: defaultPath(url.path(percentEncoded: true)))
    var domainAttribute: String?
    var maxAge: Int64?
    var expires: Int64?
    for part in parts {
      let attribute: String
      let argument: String
      if let equals = part.firstIndex(of: "=") {
        attribute = String(part[..<equals]).trimmingASCIIWhitespace().lowercased()
        argument = String(part[part.index(after: equals)...]).trimmingASCIIWhitespace()
      } else {
        attribute = String(part).trimmingASCIIWhitespace().lowercased()
        argument = ""
      }
      switch attribute {
      case "expires":
        if let seconds = CookieDate.seconds(argument) { expires = seconds }
      case "max-age":
        guard let first = argument.first, first == "-" || first.isASCIIDigit,
          argument.dropFirst().allSatisfy(\.isASCIIDigit)
        else { break }
        // A number too large for 64 bits lives for ever (as far as a run is concerned).
        let seconds = Int64(argument) ?? (first == "-" ? Int64.min : Int64.max / 2)
        maxAge = seconds <= 0 ? Int64.min : min(seconds, Int64.max / 2)
      case "domain":
        var domain = argument.lowercased()
        if domain.hasPrefix(".") { domain.removeFirst() }
        if !domain.isEmpty { domainAttribute = domain }
      case "path":
        if argument.hasPrefix("/") { cookie.path = argument }
      case "secure":
        cookie.secure = true
      case "httponly":
        cookie.httpOnly = true
      default:
        break
      }
    }
    if let maxAge {
      cookie.expires = maxAge == Int64.min ? 0 : now + maxAge
    } else if let expires {
      cookie.expires = expires
    }
    if let domain = domainAttribute {
      if domain == host {
        // A domain cookie of the host itself goes to its subdomains too; an IP address
        // has none.
        cookie.hostOnly = isIPAddress(host)
      } else {
        // No public suffix list: a bare name (`com`, `local`) is refused as a domain, so
        // that one site cannot set a cookie for every host under a top-level name.
        guard domainMatches(host, domain), domain.contains(".") else { return nil }
        cookie.domain = domain
        cookie.hostOnly = false
      }
    }
    if cookie.secure && !https { return nil }
    return cookie
  }

  /// Splits a field value that may hold several `Set-Cookie` values joined with `,` (as
  /// URLSession on Linux hands repeated fields): a comma starts a new cookie only when
  /// what follows it reads `name=` before any `;`, so the comma of an `Expires` date stays.
  public static func splitJoined(_ text: String) -> [String] {
    guard text.contains(",") else { return [text] }
    var values: [String] = []
    var start = text.startIndex
    var index = text.startIndex
    while let comma = text[index...].firstIndex(of: ",") {
      let rest = text[text.index(after: comma)...].drop { $0 == " " || $0 == "\t" }
      let head = rest.prefix { $0 != ";" && $0 != "," }
      if let equals = head.firstIndex(of: "="), equals != head.startIndex,
        !head[..<equals].contains(where: { $0 == " " || $0 == "\t" })
      {
        values.append(String(text[start..<comma]))
        start = text.index(after: comma)
      }
      index = text.index(after: comma)
    }
    values.append(String(text[start...]))
    return values.map { $0.trimmingASCIIWhitespace() }.filter { !$0.isEmpty }
  }
}

/// RFC 6265, section 5.1.1: the cookie-date algorithm, which reads the many forms of
/// `Expires` servers send (`Wed, 21 Oct 2026 07:28:00 GMT`, `Wed, 21-Oct-26 07:28:00 GMT`,
/// asctime) by finding a time, a day, a month and a year among its tokens.
enum CookieDate {
  private static let months = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
  ]

  /// Seconds since 1970, or `nil` when the text holds no valid date.
  static func seconds(_ text: String) -> Int64? {
    let tokens = text.split { character in
      guard let ascii = character.asciiValue else { return false }
      return ascii == 0x09 || (0x20...0x2F).contains(ascii) || (0x3B...0x40).contains(ascii)
        || (0x5B...0x60).contains(ascii) || (0x7B...0x7E).contains(ascii)
    }
    var time: (Int, Int, Int)?
    var day: Int?
    var month: Int?
    var year: Int?
    for token in tokens {
      if time == nil, let found = Self.time(token) {
        time = found
      } else if day == nil, let found = leadingNumber(token, digits: 1...2) {
        day = found
      } else if month == nil, token.count >= 3,
        let found = months.firstIndex(of: token.prefix(3).lowercased())
      {
        month = found + 1
      } else if year == nil, let found = leadingNumber(token, digits: 2...4) {
        year = found
      }
    }
    guard let time, let day, let month, var year else { return nil }
    if (70...99).contains(year) { year += 1900 }
    if (0...69).contains(year) { year += 2000 }
    guard (1...31).contains(day), year >= 1601, time.0 <= 23, time.1 <= 59, time.2 <= 59
    else { return nil }
    let days = HTTPDate.daysSince1970(year: year, month: month, day: day)
    return Int64(days) * 86_400 + Int64(time.0 * 3_600 + time.1 * 60 + time.2)
  }

  /// A token of 1 to 2 digits, `:`, 1 to 2 digits, `:`, 1 to 2 digits (then anything).
  private static func time(_ token: Substring) -> (Int, Int, Int)? {
    let fields = token.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
    guard fields.count == 3, let hour = leadingNumber(fields[0], digits: 1...2, whole: true),
      let minute = leadingNumber(fields[1], digits: 1...2, whole: true),
      let second = leadingNumber(fields[2], digits: 1...2)
    else { return nil }
    return (hour, minute, second)
  }

  /// The number made by the token's leading digits when their count is in `digits` (and,
  /// when `whole`, nothing follows them).
  private static func leadingNumber(
    _ token: Substring, digits: ClosedRange<Int>, whole: Bool = false
  ) -> Int? {
    let leading = token.prefix { $0.isASCII && $0.isNumber }
    guard digits.contains(leading.count), !whole || leading.count == token.count else {
      return nil
    }
    return Int(leading)
  }
}
