import Foundation

/// One proxy a request may go through: parsed from `--proxy` or a proxy variable.
///
/// `url` keeps any `user:pass@` credentials for the transport alone; `description` never
/// shows them, so every message, report and event names a proxy through `description`.
public struct ProxyServer: Sendable, Hashable, CustomStringConvertible {
  /// The proxy's protocol, as libcurl names it in a proxy URL's scheme.
  public enum Kind: String, Sendable, Hashable, CaseIterable {
    case http, https, socks4, socks4a, socks5, socks5h
  }

  public let kind: Kind
  /// The host as written (an IPv6 literal keeps its brackets).
  public let host: String
  public let port: Int
  /// The whole proxy URL, credentials included: for the transport only, never printed.
  public let url: String
  /// Whether the URL carries a user name or password.
  public let hasCredentials: Bool
  /// The URL's user name and password as written, so messages can be checked for them.
  package let secrets: [String]

  /// `scheme://host:port`, without credentials.
  public var description: String { "\(kind.rawValue)://\(host):\(port)" }

  /// Parses a proxy URL as libcurl reads one: no scheme means `http://`; the port defaults
  /// to 1080 (SOCKS), 443 (https) or 80 (http).
  ///
  /// - Parameter kinds: the schemes accepted (`--proxy` takes fewer than the variables).
  /// - Throws: `ProxyRulesError` naming what is wrong, never echoing the credentials.
  public init(parsing text: String, kinds: Set<Kind> = Set(Kind.allCases))
    throws(ProxyRulesError)
  {
    let trimmed = text.trimmingASCIIWhitespace()
    let full = trimmed.contains("://") ? trimmed : "http://" + trimmed
    guard let components = URLComponents(string: full), let scheme = components.scheme,
      let host = components.percentEncodedHost, !host.isEmpty
    else { throw ProxyRulesError("is not a proxy URL (scheme://host:port)") }
    guard let kind = Kind(rawValue: scheme.lowercased()), kinds.contains(kind) else {
      let names = Kind.allCases.filter(kinds.contains).map { $0.rawValue + "://" }
      throw ProxyRulesError(
        "has the scheme '\(scheme)'; a proxy URL starts with "
          + names.joined(separator: ", "))
    }
    let path = components.percentEncodedPath
    guard path.isEmpty || path == "/", components.query == nil, components.fragment == nil
    else { throw ProxyRulesError("must be scheme://host:port with no path") }
    self.kind = kind
    self.host = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    switch kind {
    case .http: port = components.port ?? 80
    case .https: port = components.port ?? 443
    default: port = components.port ?? 1080
    }
    url = full
    secrets = [components.user, components.password].compactMap { $0 }.filter { !$0.isEmpty }
    hasCredentials = components.user != nil || components.password != nil
  }
}

/// A proxy URL or variable haul cannot use; the message never holds the URL's credentials.
public struct ProxyRulesError: Error, Sendable, Hashable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}
