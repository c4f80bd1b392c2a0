#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A report, events or `--failed` file could not be written.
public struct ReportFileError: Error, Sendable, Hashable, CustomStringConvertible {
  public var path: String
  public var reason: String

  public init(path: String, reason: String) {
    self.path = path
    self.reason = reason
  }

  /// The error for `path` after a failed system call that set `errno`.
  static func fromErrno(_ path: String) -> ReportFileError {
    ReportFileError(path: path, reason: String(cString: strerror(errno)))
  }

  public var description: String { "\(path): \(reason)" }
}
