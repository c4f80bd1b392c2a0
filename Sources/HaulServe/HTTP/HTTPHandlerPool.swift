import Foundation
import Synchronization

/// The threads the server's handler runs on: a fixed number, fed in arrival order.
///
/// Threads of their own rather than a dispatch queue: a handler may block (an SQLite
/// commit), and libdispatch on Linux keeps about one thread per core for a concurrent
/// queue, adding more only after noticing they are blocked, so a few blocking handlers
/// there would hold up every other request for a good part of a second. Here a blocking
/// handler holds one thread; requests beyond the pool wait their turn.
///
/// Threading: `run` and `stop` may be called from any thread; the queue is behind a lock.
final class HTTPHandlerPool: Sendable {
  private struct Jobs {
    var waiting: [@Sendable () -> Void] = []
    var started = false
    var stopped = false
  }

  private let jobs = Mutex(Jobs())
  /// Counts the jobs queued, plus one per thread once stopped.
  private let signal = DispatchSemaphore(value: 0)
  private let threads: Int

  /// A pool of `threads` threads, started with the first job.
  init(threads: Int) {
    precondition(threads > 0, "the handler pool needs a thread")
    self.threads = threads
  }

  /// Queues `job`; false when the pool was stopped, and `job` will not run.
  @discardableResult
  func run(_ job: @escaping @Sendable () -> Void) -> Bool {
    let (queued, start) = jobs.withLock { jobs -> (Bool, Bool) in
      guard !jobs.stopped else { return (false, false) }
      jobs.waiting.append(job)
      defer { jobs.started = true }
      return (true, !jobs.started)
    }
    if start {
      for index in 0..<threads {
        // Each thread holds the pool until it ends, after `stop()`.
        let thread = Thread { [self] in work() }
        thread.name = "haul-http-handler-\(index)"
        thread.start()
      }
    }
    if queued { signal.signal() }
    return queued
  }

  /// Drops the jobs not started and lets each thread end once its job, if any, is done;
  /// returns at once.
  func stop() {
    let first = jobs.withLock { jobs in
      defer {
        jobs.stopped = true
        jobs.waiting = []
      }
      return !jobs.stopped
    }
    guard first else { return }
    for _ in 0..<threads { signal.signal() }
  }

  private func work() {
    while true {
      signal.wait()
      let (job, stopped) = jobs.withLock { jobs -> ((@Sendable () -> Void)?, Bool) in
        if jobs.stopped || jobs.waiting.isEmpty { return (nil, jobs.stopped) }
        return (jobs.waiting.removeFirst(), false)
      }
      if stopped { return }
      job?()
    }
  }
}
