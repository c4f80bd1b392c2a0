import Glibc
import HaulCore
import Synchronization

/// The live status area on a terminal: redrawn in place at most `redrawInterval` apart with
/// ANSI cursor-up and clear, the cursor hidden meanwhile.
///
/// Drawing never scrolls: the area is at most a few lines, each cut to the terminal's width,
/// and a redraw moves up over the previous one and clears what is below it.
final class TerminalProgress: ProgressDisplay {
  private struct Screen {
    var progress: ProgressState
    /// Lines of the area currently on screen (0 when none is drawn).
    var linesDrawn = 0
    var lastDraw = -Double.infinity
    var cursorHidden = false
  }

  private let redrawInterval: Double
  private let color: Bool
  private let screen: Mutex<Screen>
  /// Whether the cursor may be hidden now; read by `restoreTerminal` from the signal queue.
  private let cursorHidden = Atomic(false)

  init(state: ProgressState, redrawInterval: Double = 0.25) {
    self.redrawInterval = redrawInterval
    let term = ProcessEnvironment.value("TERM") ?? ""
    self.color = ProcessEnvironment.value("NO_COLOR") == nil && term != "dumb"
    self.screen = Mutex(Screen(progress: state))
  }

  func handle(_ event: TransferEvent) {
    screen.withLock { screen in
      screen.progress.apply(event)
      guard case .progress = event,
        screen.progress.elapsed - screen.lastDraw >= redrawInterval * 0.9
      else { return }
      screen.lastDraw = screen.progress.elapsed
      draw(&screen)
    }
  }

  func message(_ line: String) {
    screen.withLock { screen in
      var out = erase(&screen)
      out += line + "\n"
      Console.error(out)
      draw(&screen)
    }
  }

  func finish() {
    screen.withLock { screen in
      var out = erase(&screen)
      if screen.cursorHidden { out += "\u{1B}[?25h" }
      screen.cursorHidden = false
      cursorHidden.store(false, ordering: .relaxed)
      Console.error(out)
    }
  }

  func restoreTerminal() {
    if cursorHidden.load(ordering: .relaxed) { Console.error("\u{1B}[?25h\n") }
  }

  private func draw(_ screen: inout Screen) {
    let size = TerminalSize.current()
    let frame = TerminalFrame(columns: size.columns, rows: size.rows, color: color)
    let lines = frame.lines(screen.progress)
    var out = screen.cursorHidden ? "" : "\u{1B}[?25l"
    if !screen.cursorHidden {
      screen.cursorHidden = true
      cursorHidden.store(true, ordering: .relaxed)
    }
    out += moveToTop(screen.linesDrawn)
    out += lines.map { "\u{1B}[2K" + $0 }.joined(separator: "\n")
    out += "\u{1B}[J"
    screen.linesDrawn = lines.count
    Console.error(out)
  }

  /// Clears the area and leaves the cursor where it began; returns the escape codes.
  private func erase(_ screen: inout Screen) -> String {
    guard screen.linesDrawn > 0 else { return "" }
    let out = moveToTop(screen.linesDrawn) + "\u{1B}[J"
    screen.linesDrawn = 0
    return out
  }

  /// From the end of the area's last line to the start of its first.
  private func moveToTop(_ lines: Int) -> String {
    guard lines > 0 else { return "" }
    return "\r" + (lines > 1 ? "\u{1B}[\(lines - 1)A" : "")
  }
}
