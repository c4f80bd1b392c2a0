#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Keeps haul clear of EMFILE: raises the soft `RLIMIT_NOFILE` toward the hard limit when it
/// is lower than a run needs, and otherwise says how much concurrency fits.
package enum FileLimits {
  /// Descriptors one transfer in flight may hold: its socket, its partial file, its folder,
  /// and the folders of entries waiting in the scheduler's window (a few per slot).
  package static let perTransfer = 6
  /// Descriptors kept for everything else (standard streams, the manifest, the report,
  /// curl's wakeup pipe, the output's kept folders (`FolderCache.capacity`), the entry
  /// claims' lock files (`EntryLocks.shardCount`), slack).
  package static let reserve = 64

  /// Raises the soft limit so that `concurrency` transfers fit, if the hard limit allows;
  /// returns the concurrency that fits (equal to `concurrency` unless the hard limit is too
  /// low).
  package static func fit(concurrency: Int) -> Int {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return concurrency }
    let needed = rlim_t(concurrency * perTransfer + reserve)
    if limit.rlim_cur < needed {
      limit.rlim_cur = min(needed, limit.rlim_max)
      _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
      _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
    guard limit.rlim_cur < needed else { return concurrency }
    return max(1, (Int(limit.rlim_cur) - reserve) / perTransfer)
  }
}
