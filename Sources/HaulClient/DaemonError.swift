import Foundation

/// Why a call to the daemon failed.
///
/// No case carries the bearer token, and no message shows it (`DaemonAddress` describes
/// itself without it).
public enum DaemonError: Error, Sendable, Hashable {
  /// No daemon answers at the address: the socket file is missing, or nothing accepts
  /// connections on it (a socket left by a daemon that died), or the TCP port refuses. The
  /// CLI says so and exits 2.
  case noDaemon(DaemonAddress)
  /// The daemon answered with an error: the HTTP status and the `code` and `message` of its
  /// `{"error": {...}}` body (`manifest`, `not_found`, `unauthorized`, `path_refused`,
  /// `usage`, `too_large`, `conflict`; docs/service.md). An error answer without such a body
  /// gets the code `http_STATUS` and the start of the body, or the status, as its message.
  case api(status: Int, code: String, message: String)
  /// The exchange itself failed: the connection broke, timed out, or libcurl refused.
  case transport(String)
  /// The daemon's answer is not the JSON this client expects; the text says what did not
  /// match.
  case decoding(String)
  /// The awaiting task was cancelled, and the call was stopped.
  case cancelled
}

extension DaemonError: CustomStringConvertible, LocalizedError {
  public var description: String {
    switch self {
    case .noDaemon(let address):
      return "no haul daemon is running at \(address)"
    case .api(let status, let code, let message):
      return "the daemon refused the call (\(status) \(code)): \(message)"
    case .transport(let message):
      return "cannot talk to the daemon: \(message)"
    case .decoding(let message):
      return "the daemon's answer is not as expected: \(message)"
    case .cancelled:
      return "the call to the daemon was cancelled"
    }
  }

  public var errorDescription: String? { description }
}
