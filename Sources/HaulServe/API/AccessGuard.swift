import Foundation

/// Who may call the daemon. On the control socket, the socket file's mode (0600 in a 0700
/// folder) is the access control. Over TCP every request carries the token; its `Host` must
/// name the listener (its address, or a loopback name on a loopback listener), so a web page
/// that rebinds its own name to 127.0.0.1 is refused; and an `Origin`, which browsers send
/// with cross-site requests, must be the listener's own or one `--allow-origin` names.
public struct AccessGuard: Sendable {
  /// The bearer token, compared in constant time; never logged.
  let token: [UInt8]
  /// Origins allowed beside the listener's own (`--allow-origin`).
  let allowedOrigins: Set<String>

  public init(token: String, allowedOrigins: [String] = []) {
    self.token = Array(token.utf8)
    self.allowedOrigins = Set(allowedOrigins.map { $0.lowercased() })
  }

  /// Why `request` is refused, or nil when it may go on.
  func refusal(_ request: HTTPRequest) -> ServiceError? {
    guard case .tcp = request.listener else { return nil }
    if let refusal = placeRefusal(request) { return refusal }
    // The page (`GET /`) holds no secret: it asks for the token itself.
    if request.method == "GET", request.path == "/" { return nil }
    guard let authorization = request.headers["authorization"],
      authorization.hasPrefix("Bearer "),
      accepts(token: authorization.dropFirst(7))
    else {
      return ServiceError(.unauthorized, "a bearer token is required (haul page prints it)")
    }
    return nil
  }

  /// Why a TCP `request` is refused for where it comes from, before any token is read: a
  /// `Host` that does not name the listener, or an `Origin` that is neither the listener's
  /// own nor allowed. A listener that carries the token elsewhere (the aria2 JSON-RPC port,
  /// in each call's parameters) checks this alone, then the token with `accepts(token:)`.
  func placeRefusal(_ request: HTTPRequest) -> ServiceError? {
    guard case .tcp(let host, let port) = request.listener else { return nil }
    let names = Self.names(host: host, port: port)
    guard let given = request.headers["host"]?.lowercased(), names.contains(given) else {
      return ServiceError(.forbidden, "the request's Host is not this daemon's")
    }
    if let origin = request.headers["origin"], !allows(origin: origin, host: host, port: port) {
      return ServiceError(.forbidden, "requests from origin \(origin.lowercased()) are not allowed")
    }
    return nil
  }

  /// Whether a browser's `Origin` may call the listener on `host`:`port`: the listener's
  /// own, or one `--allow-origin` names.
  func allows(origin: String, host: String, port: Int) -> Bool {
    let origin = origin.lowercased()
    return allowedOrigins.contains(origin)
      || Self.names(host: host, port: port).contains { origin == "http://" + $0 }
  }

  /// Whether `given` is the token, compared in constant time.
  func accepts(token given: Substring) -> Bool {
    Self.equalInConstantTime(Array(given.utf8), token)
  }

  /// The `Host` values that name a listener on `host`:`port`: its address, and on a
  /// loopback address the name `localhost`, each with and without the port (with the
  /// brackets an IPv6 literal takes).
  static func names(host: String, port: Int) -> Set<String> {
    var hosts = [host.contains(":") ? "[\(host.lowercased())]" : host.lowercased()]
    if host.hasPrefix("127.") || host == "::1" || host == "localhost" {
      hosts += ["localhost", "127.0.0.1", "[::1]"]
    }
    var names = Set<String>()
    for name in hosts {
      names.insert(name)
      names.insert("\(name):\(port)")
    }
    return names
  }

  /// Whether `a` equals `b`, in a time that depends on their lengths only.
  static func equalInConstantTime(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    var difference = UInt8(a.count == b.count ? 0 : 1)
    for index in 0..<max(a.count, b.count) {
      let x = index < a.count ? a[index] : 0
      let y = index < b.count ? b[index] : 0
      difference |= x ^ y
    }
    return difference == 0
  }
}
