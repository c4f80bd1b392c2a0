import Foundation
import HaulCore

extension RunOptions {
  /// The proxy rules of `--proxy`, `--no-proxy` or the proxy variables in `environment`,
  /// checked against what `transport` can follow.
  ///
  /// FoundationNetworking on Linux applies no session proxy settings of its own: its libcurl
  /// reads the proxy variables itself, with the rules `ProxyRules` follows, and nothing can
  /// change that per run. So with `--transport urlsession` the options are refused, and so
  /// are variables that name anything but an `http://` proxy (haul cannot vouch for how
  /// corelibs handles those); the usage error says to use the curl transport.
  static func proxyRules(
    _ parsed: ParsedArguments, transport: TransportChoice, environment: [String: String]
  ) throws(UsageError) -> ProxyRules {
    let option = parsed.value("proxy")
    let none = parsed.has("no-proxy")
    if option != nil, none {
      throw UsageError("--proxy and --no-proxy cannot be combined", command: "run")
    }
    if transport == .urlsession, option != nil || none {
      throw UsageError(
        "--\(none ? "no-proxy" : "proxy") needs --transport curl: the urlsession transport"
          + " follows only the proxy variables", command: "run")
    }
    if none { return .direct }
    let rules: ProxyRules
    do {
      if let option {
        rules = try ProxyRules(proxy: option, environment: environment)
      } else {
        rules = try ProxyRules(environment: environment)
      }
    } catch {
      throw UsageError(option == nil ? error.message : "--proxy \(error.message)", command: "run")
    }
    if transport == .urlsession, let server = rules.servers.first(where: { $0.kind != .http }) {
      throw UsageError(
        "the proxy variables name \(server.kind.rawValue)://\(server.host), which the"
          + " urlsession transport cannot use; use --transport curl", command: "run")
    }
    return rules
  }
}
