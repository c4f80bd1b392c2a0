/// Turns the scheduler's events into `--events` JSON Lines (docs/manual.md, "Events").
///
/// A `progress` snapshot becomes one `progress` line per entry in flight, at most one per
/// entry every `progressInterval` seconds and only when its byte count moved, so a consumer
/// sees a few lines a second per entry however often the scheduler samples. Only an entry
/// between its `start` and its end gets `progress` lines: a snapshot is taken apart from the
/// events, so it can list an entry whose `start` is not out yet or whose `done` already is.
/// Memory: one small record per entry in flight.
public struct EventLines: Sendable {
  /// Least time between two `progress` lines of one entry, in seconds.
  public var progressInterval: Double

  /// The entries started and not ended, by line, with their last `progress` line's time
  /// and bytes (`-1` bytes until the first).
  private var lastProgress: [Int: (elapsed: Double, bytes: Int64)] = [:]

  public init(progressInterval: Double = 0.5) {
    self.progressInterval = progressInterval
  }

  /// The lines (without line breaks) that `event` produces; often none for `progress`.
  public mutating func lines(for event: TransferEvent) -> [String] {
    switch event {
    case .started(let entry):
      lastProgress[entry.line] = (-Double.infinity, -1)
      return [ReportJSON.startEvent(entry)]
    case .progress(let snapshot):
      var lines: [String] = []
      for active in snapshot.active {
        let line = active.entry.line
        guard let last = lastProgress[line],
          last.bytes != active.bytes, snapshot.elapsed - last.elapsed >= progressInterval
        else { continue }
        lastProgress[line] = (snapshot.elapsed, active.bytes)
        lines.append(ReportJSON.progressEvent(active))
      }
      return lines
    case .retry(let entry, let attempt, let code, let delay):
      return [ReportJSON.retryEvent(entry, attempt: attempt, code: code, delay: delay)]
    case .finished(let outcome):
      lastProgress[outcome.line] = nil
      return [ReportJSON.finishedEvent(outcome)]
    case .summary(let summary):
      lastProgress.removeAll()
      return [ReportJSON.summaryEvent(summary)]
    }
  }
}
