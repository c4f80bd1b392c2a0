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

  /// `haul: 42%, 120/302 files, 1.20 GiB of 2.00 GiB and 180 files of unknown size,
  /// 8.00 MiB/s, ETA 1:40, 2 active`.
  static func line(_ state: ProgressState) -> String {
    var bytes = Format.bytes(state.completedBytes) + " of " + Format.bytes(state.expectedBytes)
    let unknown = state.unknownSizes
    if unknown > 0 { bytes += " and \(unknown) \(unknown == 1 ? "file" : "files") of unknown size" }
    var line =
      "haul: \(Format.percent(state.fraction)), \(state.finished)/\(state.total) files, \(bytes), "
      + "\(Format.rate(state.rate.bytesPerSecond)), ETA \(Format.clock(state.estimatedSecondsLeft))"
    if state.failed > 0 { line += ", \(state.failed) failed" }
    line += ", \(state.active.count) active"
    return line
  }
}
