import Foundation

/// Which proxy, if any, each request goes through: decided here, once, so that every
/// transport reaches the network the same way.
///
/// Built from the environment as libcurl reads it (`http_proxy` in lower case only, against
/// httpoxy; `HTTPS_PROXY`/`https_proxy`, `ALL_PROXY`/`all_proxy` and `NO_PROXY`/`no_proxy`,
/// lower case first), from `--proxy` (which replaces the proxy variables; `no_proxy` still
/// applies, as with curl's `-x`), or `.direct` (`--no-proxy`). A variable set but empty
/// means no proxy for its scheme.
public struct ProxyRules: Sendable, Hashable {
  /// The proxy for `http://` URLs and for `https://` URLs, when there is one.
  private var httpProxy: ProxyServer?
  private var httpsProxy: ProxyServer?
  private var noProxy: NoProxyList

  /// No proxy for any request (`--no-proxy`, and the default of a library transport).
  public static let direct = ProxyRules(http: nil, https: nil, noProxy: .empty)

  /// The schemes `--proxy` accepts.
  public static let optionKinds: Set<ProxyServer.Kind> = [.http, .https, .socks5h]

  private init(http: ProxyServer?, https: ProxyServer?, noProxy: NoProxyList) {
    httpProxy = http
    httpsProxy = https
    self.noProxy = noProxy
  }

  /// The rules of the proxy variables in `environment`.
  ///
  /// - Throws: `ProxyRulesError` naming the variable whose value is not a usable proxy URL.
  public init(environment: [String: String]) throws(ProxyRulesError) {
    func variable(_ names: String...) -> (name: String, value: String)? {
      for name in names { if let value = environment[name] { return (name, value) } }
      return nil
    }
    func server(_ found: (name: String, value: String)?) throws(ProxyRulesError) -> ProxyServer? {
      guard let found, !found.value.trimmingASCIIWhitespace().isEmpty else { return nil }
      do {
        return try ProxyServer(parsing: found.value)
      } catch {
        throw ProxyRulesError("\(found.name) \(error.message)")
      }
    }
    let all = variable("all_proxy", "ALL_PROXY")
    httpProxy = try server(variable("http_proxy") ?? all)
    httpsProxy = try server(variable("https_proxy", "HTTPS_PROXY") ?? all)
    noProxy = NoProxyList(variable("no_proxy", "NO_PROXY")?.value ?? "")
  }

  /// `--proxy URL` for every request, except the hosts of `no_proxy` in `environment`.
  ///
  /// - Throws: `ProxyRulesError` when `url` is not an `http://`, `https://` or `socks5h://`
  ///   proxy URL.
  public init(proxy url: String, environment: [String: String]) throws(ProxyRulesError) {
    let server = try ProxyServer(parsing: url, kinds: Self.optionKinds)
    let noProxy = environment["no_proxy"] ?? environment["NO_PROXY"] ?? ""
    self.init(http: server, https: server, noProxy: NoProxyList(noProxy))
  }

  /// The proxy a request to `url` goes through, or `nil` to go direct.
  public func proxy(for url: URL) -> ProxyServer? {
    let server: ProxyServer?
    switch url.scheme?.lowercased() {
    case "http": server = httpProxy
    case "https": server = httpsProxy
    default: server = nil
    }
    guard let server else { return nil }
    guard let host = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedHost
    else { return server }
    return noProxy.bypasses(host) ? nil : server
  }

  /// Whether every request goes direct: no proxy is set for either scheme.
  package var isDirect: Bool { httpProxy == nil && httpsProxy == nil }

  /// Every proxy some request may go through, for checks made once per run.
  public var servers: [ProxyServer] {
    var all: [ProxyServer] = []
    for server in [httpProxy, httpsProxy].compactMap({ $0 }) where !all.contains(server) {
      all.append(server)
    }
    return all
  }
}
