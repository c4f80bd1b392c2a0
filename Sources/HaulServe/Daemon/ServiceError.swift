/// Why the daemon refuses a call: a stable `code` that clients read (the report's error codes,
/// or one of the API's own) and a message for people. The token never appears in one.
public struct ServiceError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The API's own codes; a run's outcome codes (`http_404`…) travel as entries' errors.
  public enum Code: String, Sendable {
    /// A bad manifest line: the message names its line number; nothing was queued.
    case manifest
    case notFound = "not_found"
    case unauthorized
    /// An output directory outside the daemon's roots, or a name that would leave it.
    case pathRefused = "path_refused"
    /// A bad option or request body.
    case usage
    /// A request body over `--max-request-size`.
    case tooLarge = "too_large"
    /// A call the job's state does not allow (resuming a job that ended).
    case conflict
    /// The request's `Host` or `Origin` is not the daemon's own.
    case forbidden
    /// The journal or the disk failed.
    case io
  }

  public var code: Code
  public var message: String

  public init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  public var description: String { "\(code.rawValue): \(message)" }

  /// The HTTP status the API answers with.
  public var status: Int {
    switch code {
    case .manifest, .usage: 400
    case .unauthorized: 401
    case .forbidden, .pathRefused: 403
    case .notFound: 404
    case .conflict: 409
    case .tooLarge: 413
    case .io: 500
    }
  }
}
