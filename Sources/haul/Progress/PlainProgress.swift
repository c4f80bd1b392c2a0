import HaulCore
import Synchronization

/// Progress for logs and pipes: one plain line every `interval` seconds of the run.
final class PlainProgress: ProgressDisplay {
  private let interval: Double
  private let state: Mutex<(progress: ProgressState, lastLine: Double)>

  init(state: ProgressState, interval: Double = 5) {
    self.interval = interval
    self.state = Mutex((state, 0))
  }

  func handle(_ event: TransferEvent) {
    let line: String? = state.withLock { current in
      current.progress.apply(event)
      guard case .progress = event, current.progress.elapsed - current.lastLine >= interval
      else { return nil }
      current.lastLine = current.progress.elapsed
      return PlainProgress.line(current.progress)
    }
    if let line { Console.error(line + "\n") }
  }

  func message(_ line: String) { Console.error(line + "\n") }
  func finish() {}
  func restoreTerminal() {}

  static func line(_ state: ProgressState) -> String {
    var bytes = Format.bytes(state.expectedBytes == nil ? state.bytes : state.completedBytes)
    if let expected = state.expectedBytes { bytes += " of " + Format.bytes(expected) }
    var line =
      "haul: \(Format.percent(state.fraction)), \(state.finished)/\(state.total) files, \(bytes), "
      + "\(Format.rate(state.rate.bytesPerSecond)), ETA \(Format.clock(state.estimatedSecondsLeft))"
    if state.failed > 0 { line += ", \(state.failed) failed" }
    line += ", \(state.active.count) active"
    return line
  }
}
