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
/// ones); other threads wanting that folder spin on the lock (`rwsem_spin_on_owner`), where
/// a single-threaded client such as `curl --parallel` spins not at all. Waiting here sleeps
/// instead (a pthread mutex, not a spinning one); the kernel's own work per file is
/// unchanged. On tmpfs adding a name is quick, and with two engine loops the sleeps and
/// wake-ups of taking turns cost more than the spinning they avoid, so there nothing takes
/// turns (the figures: Benchmarks/results/HISTORY.md).
///
/// The mutex is glibc's adaptive kind: a thread that finds it taken spins a little before it
/// sleeps, and a name is usually added within that spin, so most meetings cost no `futex`
/// call.
enum DirectoryEntryLock {
  /// `nonisolated(unsafe)`: the pointer never changes after its one initialization, and
  /// what it points to is the lock itself, used only through `pthread_mutex_*`.
  nonisolated(unsafe) private static let mutex: UnsafeMutablePointer<pthread_mutex_t> = {
    let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    var attributes = pthread_mutexattr_t()
    pthread_mutexattr_init(&attributes)
    // PTHREAD_MUTEX_ADAPTIVE_NP, a glibc kind Swift does not import.
    pthread_mutexattr_settype(&attributes, 3)
    pthread_mutex_init(mutex, &attributes)
    pthread_mutexattr_destroy(&attributes)
    return mutex
  }()

  /// Runs `body` while holding the lock when `taking` (the folder's file system is one
  /// where adding a name is slow), else at once.
  static func withLock<Result>(taking: Bool, _ body: () -> Result) -> Result {
    guard taking else { return body() }
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return body()
  }
}
