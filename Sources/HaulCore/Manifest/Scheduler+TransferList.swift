import Synchronization

extension Scheduler {
  /// Runs every transfer of `transfers` and returns when the run has ended, with each
  /// transfer's outcome: the common case of embedding haul, in one call.
  ///
  /// `options.expectedTotal` and `expectedBytes` are filled in from the list when they are
  /// not set. `onEvent`, if given, sees every event as `run(_:onEvent:)` hands it over.
  /// The transport stays open for further runs: call its `shutdown()` after the last one.
  public static func run(
    _ transfers: TransferList, through transport: any Transport,
    options: SchedulerOptions = SchedulerOptions(), onEvent: TransferEventHandler? = nil
  ) async -> RunResult {
    var options = options
    if options.expectedTotal == nil { options.expectedTotal = transfers.statistics.entries }
    if options.expectedBytes == nil, transfers.statistics.entriesWithoutSize == 0 {
      options.expectedBytes = transfers.statistics.knownBytes
    }
    let collector = OutcomeCollector()
    await Scheduler(transport: transport, options: options).run(transfers) { event in
      collector.add(event)
      onEvent?(event)
    }
    return collector.result()
  }
}

/// Keeps a run's outcomes and summary as the events arrive, one at a time.
private final class OutcomeCollector: Sendable {
  private let state = Mutex<(outcomes: [EntryOutcome], summary: RunSummary?)>(([], nil))

  func add(_ event: TransferEvent) {
    switch event {
    case .finished(let outcome): state.withLock { $0.outcomes.append(outcome) }
    case .summary(let summary): state.withLock { $0.summary = summary }
    case .started, .progress, .retry: break
    }
  }

  /// The outcomes in line order, with the summary; for a run that has ended.
  func result() -> RunResult {
    state.withLock { state in
      guard let summary = state.summary else {
        preconditionFailure("a run always ends with its summary event")
      }
      return RunResult(outcomes: state.outcomes.sorted { $0.line < $1.line }, summary: summary)
    }
  }
}
