/// Why `HTTPServer` could not open a listener: a stable code for the daemon to act on (say,
/// exit with a message when the control socket is taken) and a message for a person.
public struct HTTPServerError: Error, Sendable, Hashable, CustomStringConvertible {
  public var code: Code
  /// What failed, naming the address or path and, for a system call, its `errno` text.
  public var message: String

  init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  public var description: String { "\(code): \(message)" }

  /// The kinds of failure. Only the codes below exist.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private enum Kind: Hashable, Sendable {
      case invalidAddress, addressInUse, socket, daemon, stopped
    }

    private let kind: Kind
    private init(_ kind: Kind) { self.kind = kind }

    public var description: String {
      switch kind {
      case .invalidAddress: "invalid_address"
      case .addressInUse: "address_in_use"
      case .socket: "socket"
      case .daemon: "daemon"
      case .stopped: "stopped"
      }
    }

    /// The host is not an IPv4 or IPv6 literal, the port is out of range, or the socket
    /// path is too long for `sun_path`.
    public static let invalidAddress = Code(.invalidAddress)
    /// The port is taken, another process answers on the socket path, or the path is
    /// something other than a socket (it is never removed then).
    public static let addressInUse = Code(.addressInUse)
    /// Another system call on the listening socket failed.
    public static let socket = Code(.socket)
    /// libmicrohttpd did not start (out of memory or threads).
    public static let daemon = Code(.daemon)
    /// The server was stopped; it opens no more listeners.
    public static let stopped = Code(.stopped)
  }
}
