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
  /// An approximation of `wcwidth` from the scalar's Unicode properties (glibc's `wcwidth`
  /// is not visible to Swift, and would depend on the locale).
  static func columns(_ scalar: Unicode.Scalar) -> Int {
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format, .control: return 0
    default: break
    }
    if scalar.properties.isEmojiPresentation { return 2 }
    switch scalar.value {
    case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
      0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
      0xFFE0...0xFFE6, 0x20000...0x3FFFD:
      return 2
    default:
      return 1
    }
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
