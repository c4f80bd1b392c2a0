/// One HTTP request as the daemon's handler sees it: what libmicrohttpd parsed, and the body
/// read whole (never more than the server's `maxBodySize`).
public struct HTTPRequest: Sendable, Hashable {
  /// The listener a request came in on, so that the handler can check `Host` against the
  /// address it was sent to (a defence against DNS rebinding) and tell the control socket,
  /// which needs no token, from TCP, which does.
  public enum Listener: Sendable, Hashable {
    /// The control socket (a Unix domain socket).
    case unix
    /// A TCP listener, by the address it is bound to: the numeric host as `inet_ntop` spells
    /// it (`127.0.0.1`, `::1`, no brackets) and the bound port.
    case tcp(host: String, port: Int)
  }

  /// The method as the client sent it (`GET`, `POST`, ...).
  public var method: String
  /// The path without the query, percent-decoded (`%2F` becomes `/`).
  public var path: String
  /// The query's parameters, names and values percent-decoded (`+` is a space); a name
  /// without `=` has the value `""`, and a name given twice keeps its first value.
  public var query: [String: String]
  /// The header fields, names lower-cased; a field sent more than once has its values
  /// joined with `", "` in the order they came.
  public var headers: [String: String]
  /// The body, whole: empty when there is none.
  public var body: [UInt8]
  /// The listener the request came in on.
  public var listener: Listener

  public init(
    method: String, path: String, query: [String: String] = [:],
    headers: [String: String] = [:], body: [UInt8] = [], listener: Listener
  ) {
    self.method = method
    self.path = path
    self.query = query
    self.headers = headers
    self.body = body
    self.listener = listener
  }

  /// The value of a header field, by a name in any case.
  public func header(_ name: String) -> String? { headers[name.lowercased()] }
}
