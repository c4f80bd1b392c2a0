import Synchronization

/// Byte counts written by a transfer's I/O path and sampled by the scheduler: progress is
/// read a few times a second, never queued per chunk.
public final class ProgressCounter: Sendable {
  private let presentBytes = Atomic<Int64>(0)
  private let movedBytes = Atomic<Int64>(0)

  public init() {}

  /// Bytes of the entry present so far (a resumed prefix included): for its percentage.
  public var present: Int64 { presentBytes.load(ordering: .relaxed) }
  /// Bytes moved over the network in this run: for the run's totals and rate.
  public var moved: Int64 { movedBytes.load(ordering: .relaxed) }

  /// Sets the bytes present.
  public func store(_ bytes: Int64) { presentBytes.store(bytes, ordering: .relaxed) }

  /// Counts `bytes` more moved.
  public func add(moved bytes: Int64) { movedBytes.add(bytes, ordering: .relaxed) }
}
