import Synchronization

/// Byte counts written by a transfer's I/O path and sampled by the scheduler: progress is
/// read a few times a second, never queued per chunk.
package final class ProgressCounter: Sendable {
  private let presentBytes = Atomic<Int64>(0)
  private let movedBytes = Atomic<Int64>(0)
  private let expectedBytes = Atomic<Int64>(-1)

  package init() {}

  /// Bytes of the entry present so far (a resumed prefix included): for its percentage.
  package var present: Int64 { presentBytes.load(ordering: .relaxed) }
  /// Bytes moved over the network in this run: for the run's totals and rate.
  package var moved: Int64 { movedBytes.load(ordering: .relaxed) }

  /// The entry's whole length as its response declared it (`Content-Length`, the
  /// `Content-Range` total), once known: for its bar and percentage when the manifest gives
  /// no `size`.
  package var expected: Int64? {
    let value = expectedBytes.load(ordering: .relaxed)
    return value >= 0 ? value : nil
  }

  /// Records the entry's whole length, learned from its response.
  package func store(expected bytes: Int64) { expectedBytes.store(bytes, ordering: .relaxed) }

  /// Sets the bytes present.
  package func store(_ bytes: Int64) { presentBytes.store(bytes, ordering: .relaxed) }

  /// Counts `bytes` more moved.
  package func add(moved bytes: Int64) { movedBytes.add(bytes, ordering: .relaxed) }
}
