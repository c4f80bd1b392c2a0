import Glibc

/// Writes to standard output and standard error with `write(2)`, whole texts at a time, so
/// that an event line or a status line is never split by buffering. Stateless and safe to
/// call from any thread.
enum Console {
  /// Writes `text` to standard error.
  static func error(_ text: String) {
    _ = write(STDERR_FILENO, text)
  }

  /// Writes `text` to standard output; false when it could not (a closed pipe, say).
  @discardableResult
  static func output(_ text: String) -> Bool {
    write(STDOUT_FILENO, text)
  }

  /// Whether standard error is a terminal (the live progress display's condition).
  static var errorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

  private static func write(_ fd: Int32, _ text: String) -> Bool {
    var text = text
    return text.withUTF8 { bytes in
      guard var base = bytes.baseAddress.map(UnsafeRawPointer.init) else { return true }
      var remaining = bytes.count
      while remaining > 0 {
        let written = Glibc.write(fd, base, remaining)
        if written < 0 {
          if errno == EINTR { continue }
          return false
        }
        base += written
        remaining -= written
      }
      return true
    }
  }
}
