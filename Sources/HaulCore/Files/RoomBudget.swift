import Synchronization

/// Bytes that downloads into one folder may still take without asking the file system for
/// its free space again: half of what it last reported, less what the downloads checked
/// since took. `LocalDownload.ensureRoom` asks (`fstatvfs`) only when the budget does not
/// cover a file, so that a run of small files on a roomy disk makes no such call per file,
/// and a disk that fills up is still seen before its last half is gone. Other writers on
/// the disk may take the other half meanwhile; a write that finds no room still fails as
/// `disk_full`.
///
/// Thread-safe: one atomic.
final class RoomBudget: Sendable {
  private let left = Atomic<Int64>(0)

  /// Takes `bytes` from the budget: `false` (taking nothing) when it does not cover them.
  func take(_ bytes: Int64) -> Bool {
    var current = left.load(ordering: .relaxed)
    while current >= bytes {
      let (exchanged, found) = left.compareExchange(
        expected: current, desired: current - bytes, ordering: .relaxed)
      if exchanged { return true }
      current = found
    }
    return false
  }

  /// Starts the budget again from `free` bytes just reported, `bytes` of them taken.
  func refill(free: UInt64, taking bytes: Int64) {
    let half = Int64(min(free / 2, UInt64(Int64.max)))
    left.store(max(0, half - bytes), ordering: .relaxed)
  }
}
