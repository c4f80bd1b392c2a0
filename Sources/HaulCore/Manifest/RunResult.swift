/// What a run of a `TransferList` ended with: each transfer's outcome, in the list's order,
/// and the run's summary.
public struct RunResult: Sendable, Hashable {
  /// One per transfer; `outcomes[i]` is the outcome of the list's transfer `i` (its `line`
  /// is `i + 1`).
  public var outcomes: [EntryOutcome]
  public var summary: RunSummary

  public init(outcomes: [EntryOutcome], summary: RunSummary) {
    self.outcomes = outcomes
    self.summary = summary
  }

  /// The outcomes that failed, in the list's order.
  public var failures: [EntryOutcome] { outcomes.filter { $0.status == .failed } }
}
