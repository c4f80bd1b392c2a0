import Glibc
import HaulCore

/// Writes to standard output and standard error with `write(2)`, whole texts at a time, so
/// that an event line or a status line is never split by buffering. Stateless and safe to
/// call from any thread.
enum Console {
  /// Writes `text` to standard error.
  static func error(_ text: String) {
    _ = writeAll(STDERR_FILENO, text)
  }

  /// Writes `text` to standard output; false when it could not (a closed pipe, say).
  @discardableResult
  static func output(_ text: String) -> Bool {
    writeAll(STDOUT_FILENO, text)
  }

  /// Writes `bytes` to standard output; false when it could not (a closed pipe, say).
  @discardableResult
  static func output(_ bytes: [UInt8]) -> Bool {
    bytes.withUnsafeBytes { writeAll(STDOUT_FILENO, $0) }
  }

  /// Whether standard error is a terminal (the live progress display's condition).
  static var errorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
}
