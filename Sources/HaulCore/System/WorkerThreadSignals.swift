#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Keeps the termination signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT) off the threads haul
/// starts itself (the curl loops, digest workers), whoever embeds them.
///
/// Why: a program receiving these signals through dispatch sources (as `haul run` does)
/// leaves their disposition ignored, and the kernel may hand a process-wide signal to any
/// thread that does not block it; a worker thread of haul's has no use for one, so it never
/// takes one away from the program's own handling.
package enum WorkerThreadSignals {
  /// Blocks the termination signals on the calling thread; call first thing in a thread
  /// haul starts.
  package static func block() {
    var set = sigset_t()
    sigemptyset(&set)
    for number in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] { sigaddset(&set, number) }
    pthread_sigmask(SIG_BLOCK, &set, nil)
  }
}
