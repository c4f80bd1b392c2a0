/// A checksum file (`--checksums`) that cannot be used: `FILE:LINE: reason`. A usage error:
/// the run stops before any transfer.
public struct ChecksumFileError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The stable kind of problem.
  public enum Code: String, Sendable, Hashable {
    /// The file cannot be opened or read.
    case unreadable = "checksums_unreadable"
    /// A line is not a checksum line, or is longer than 1 MiB.
    case badLine = "checksums_bad_line"
    /// Two lines give different digests of one algorithm for the same file.
    case contradiction = "checksums_contradiction"
  }

  public var code: Code
  /// The file as given.
  public var file: String
  /// 1-based physical line; 0 when the file as a whole cannot be read.
  public var line: Int
  public var reason: String

  public init(_ code: Code, file: String, line: Int, reason: String) {
    self.code = code
    self.file = file
    self.line = line
    self.reason = reason
  }

  public var description: String {
    line > 0 ? "\(file):\(line): \(reason)" : "\(file): \(reason)"
  }
}
