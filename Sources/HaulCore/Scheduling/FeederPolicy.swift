/// How the feeder reads the manifest into the run, as a value (`FeederPolicyTests`).
///
/// Batches grow from `firstBatch` to `largestBatch` entries: the first transfers start after
/// a few entries are read, and a long manifest is then handed over in few, large batches.
/// When more than half of a batch was complete already (a rerun), the next batch's skip
/// checks run on every core, beside the reading of the batch after it. Entries another haul
/// process holds are checked again after a pause that doubles from `firstHeldPause` to
/// `longestHeldPause`: soon after the other run lets go, without spinning while it works.
package struct FeederPolicy: Sendable, Equatable {
  package static let firstBatch = 16
  package static let largestBatch = 256
  package static let firstHeldPause = 0.05
  package static let longestHeldPause = 1.0

  /// Entries to read before the next hand-over.
  package private(set) var batchSize = FeederPolicy.firstBatch
  /// Whether the next batch's skip checks run in parallel.
  package private(set) var parallel = false
  /// Seconds before entries another run holds are checked again.
  package private(set) var heldPause = FeederPolicy.firstHeldPause

  package init() {}

  /// A batch was read: the next may be larger.
  package mutating func batchRead() {
    batchSize = min(batchSize * 2, Self.largestBatch)
  }

  /// `skipped` of the batch's `count` entries ended without a transfer.
  package mutating func admitted(skipped: Int, of count: Int) {
    parallel = skipped * 2 > count
  }

  /// The pause before the next check of held entries; the one after it is longer.
  package mutating func nextHeldPause() -> Double {
    defer { heldPause = min(heldPause * 2, Self.longestHeldPause) }
    return heldPause
  }
}
