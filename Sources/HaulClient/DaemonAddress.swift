import Foundation

/// Where the daemon (`haul serve`) answers: its control socket, or a loopback TCP listener
/// (`haul serve --listen`) that wants a bearer token.
///
/// The token is a secret: it goes to the daemon only as `Authorization: Bearer`, and
/// `description`, `debugDescription` and the mirror (`dump`) leave it out, so an error message
/// or a log line that shows an address never shows it.
public enum DaemonAddress: Sendable, Hashable {
  /// The control socket, a Unix socket at this path.
  case socket(path: String)
  /// An HTTP base URL (`http://127.0.0.1:7070`) and the token the daemon was started with.
  case tcp(baseURL: URL, token: String)

  /// The control socket as the daemon finds it: `$HAUL_SOCKET`, else
  /// `$XDG_RUNTIME_DIR/haul/haul.sock`, else `$XDG_STATE_HOME/haul/haul.sock`, else
  /// `~/.local/state/haul/haul.sock`.
  ///
  /// An empty variable counts as unset, and so does an XDG variable that is not an absolute
  /// path (the XDG Base Directory rules). The socket file need not exist: a call to an
  /// address without one fails with `DaemonError.noDaemon`.
  /// - Parameter environment: the variables to read; the process's own by default.
  public static func `default`(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> DaemonAddress {
    func value(_ name: String) -> String? {
      guard let value = environment[name], !value.isEmpty else { return nil }
      return value
    }
    func directory(_ name: String) -> String? {
      guard let value = value(name), value.hasPrefix("/") else { return nil }
      return value
    }
    if let path = value("HAUL_SOCKET") { return .socket(path: path) }
    if let runtime = directory("XDG_RUNTIME_DIR") {
      return .socket(path: joined(runtime, "haul/haul.sock"))
    }
    if let state = directory("XDG_STATE_HOME") {
      return .socket(path: joined(state, "haul/haul.sock"))
    }
    let home = value("HOME") ?? NSHomeDirectory()
    return .socket(path: joined(home, ".local/state/haul/haul.sock"))
  }

  private static func joined(_ directory: String, _ tail: String) -> String {
    directory.hasSuffix("/") ? directory + tail : directory + "/" + tail
  }
}

extension DaemonAddress: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
  /// The socket's path, or the base URL without its token (and without any user or password
  /// it was written with).
  public var description: String {
    switch self {
    case .socket(let path):
      return path
    case .tcp(let baseURL, _):
      guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else {
        return "(a TCP address)"
      }
      components.user = nil
      components.password = nil
      components.query = nil
      components.fragment = nil
      return components.string ?? "(a TCP address)"
    }
  }

  public var debugDescription: String { "DaemonAddress(\(description))" }

  /// Shows the address as `description` does, so that `dump` does not print the token.
  public var customMirror: Mirror { Mirror(self, children: ["address": description]) }
}
