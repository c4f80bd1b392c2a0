#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One process-wide lock around the calls that add names to a folder (creating a partial
/// file, renaming it into place), so that haul's worker threads make them one at a time.
///
/// Why: the kernel holds a folder's lock while it adds a name, and on ext4 finding an inode
/// for a new file can take long (after many deletions it searches past recently freed
/// ones); other threads wanting that folder spin on the lock. haul's threads creating and
/// renaming at once spent a fifth of a 5,000-file run on a disk in `rwsem_spin_on_owner`
/// (measured with `perf`), where a single-threaded client such as `curl --parallel` spends
/// none. Waiting here sleeps instead (a pthread mutex, not a spinning one); the kernel's
/// own work per file is unchanged.
enum DirectoryEntryLock {
  /// `nonisolated(unsafe)`: the pointer never changes after its one initialization, and
  /// what it points to is the lock itself, used only through `pthread_mutex_*`.
  nonisolated(unsafe) private static let mutex: UnsafeMutablePointer<pthread_mutex_t> = {
    let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    pthread_mutex_init(mutex, nil)
    return mutex
  }()

  /// Runs `body` while holding the lock.
  static func withLock<Result>(_ body: () -> Result) -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return body()
  }
}
