import HaulCore

/// Shows a run's progress on standard error: a live area on a terminal, a plain line every
/// few seconds elsewhere, or nothing (`--quiet`, `--events`). Messages (failures) and the
/// final summary go to standard error in every mode.
///
/// Threading: owned by the task that consumes the scheduler's events; `restoreTerminal` is
/// the one call made from elsewhere (the signal queue, just before the process exits).
protocol ProgressDisplay: AnyObject, Sendable {
  /// Takes in one event; may redraw.
  func handle(_ event: TransferEvent)
  /// Prints `line` (a failure, say) without disturbing the live area.
  func message(_ line: String)
  /// Removes the live area and restores the terminal; call once, before the summary.
  func finish()
  /// Makes the terminal usable again right now (shows the cursor); safe from any thread.
  func restoreTerminal()
}

/// Which display a run gets.
enum ProgressDisplays {
  static func make(quiet: Bool, state: ProgressState) -> any ProgressDisplay {
    if quiet { return QuietProgress() }
    if Console.errorIsTerminal { return TerminalProgress(state: state) }
    return PlainProgress(state: state)
  }
}

/// No progress at all: messages only.
final class QuietProgress: ProgressDisplay {
  func handle(_ event: TransferEvent) {}
  func message(_ line: String) { Console.error(line + "\n") }
  func finish() {}
  func restoreTerminal() {}
}
