import Glibc

/// The terminal's size, asked of standard error with `ioctl(TIOCGWINSZ)` on every redraw so
/// that resizing the window takes effect at once.
enum TerminalSize {
  /// Columns and rows; 80×24 when the size cannot be read.
  static func current() -> (columns: Int, rows: Int) {
    var size = winsize()
    guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else {
      return (80, 24)
    }
    return (Int(size.ws_col), Int(max(size.ws_row, 1)))
  }
}

/// How many terminal columns text takes, for fitting lines to the width.
enum TextWidth {
  /// Columns of `scalar`: 2 for wide (East Asian) characters, 0 for combining marks, else 1.
  static func columns(_ scalar: Unicode.Scalar) -> Int {
    let width = wcwidth(wchar_t(bitPattern: scalar.value))
    return width < 0 ? 1 : Int(width)
  }

  /// Columns of `text`.
  static func columns(_ text: String) -> Int {
    text.unicodeScalars.reduce(0) { $0 + columns($1) }
  }

  /// `text` cut to at most `width` columns, keeping its end (a path's file name) and marking
  /// the cut with `…`.
  static func keepingEnd(_ text: String, width: Int) -> String {
    guard width > 0 else { return "" }
    guard columns(text) > width else { return text }
    var kept = String.UnicodeScalarView()
    var used = 1
    for scalar in text.unicodeScalars.reversed() {
      let needed = columns(scalar)
      if used + needed > width { break }
      used += needed
      kept.insert(scalar, at: kept.startIndex)
    }
    return "…" + String(kept)
  }

  /// `text` cut to at most `width` columns, keeping its start.
  static func keepingStart(_ text: String, width: Int) -> String {
    guard columns(text) > width else { return text }
    var kept = String.UnicodeScalarView()
    var used = 0
    for scalar in text.unicodeScalars {
      let needed = columns(scalar)
      if used + needed > width { break }
      used += needed
      kept.append(scalar)
    }
    return String(kept)
  }
}
