/// haul's exit statuses (docs/manual.md, "Exit status").
enum ExitCode: Int32 {
  /// Every transfer succeeded or was already complete (`verify`: every file matches).
  case ok = 0
  /// At least one transfer failed after its retries (`verify`: a file is missing or differs).
  case failures = 1
  /// A usage or manifest error; nothing was transferred (or, for a manifest line that
  /// turned bad during the run, nothing from that line on).
  case usage = 2
  /// Stopped by SIGINT or SIGTERM.
  case interrupted = 130
}
