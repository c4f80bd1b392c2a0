import Dispatch
import Glibc
import Synchronization

/// Turns SIGINT and SIGTERM into a graceful stop, and a second one into an immediate exit.
///
/// The default handlers are ignored and the signals are delivered through `DispatchSource`s
/// on a private serial queue, so the handlers run as ordinary code (not in signal context).
/// The first signal calls `onFirst` (cancel the scheduler) and arms a deadline: should the
/// run still not have ended after `deadline` seconds, `onExit` runs as if a second signal had
/// come. `onExit` must end the process (restore the terminal, then `_exit(130)`).
///
/// `@unchecked Sendable`: the dispatch sources are set up in `init` and only cancelled
/// afterwards (dispatch sources are thread-safe); the signal count is behind a `Mutex`.
final class SignalWatcher: @unchecked Sendable {
  private let queue = DispatchQueue(label: "haul.signals")
  private var sources: [any DispatchSourceSignal] = []
  private let received = Mutex(0)
  private let deadline: Double
  private let onFirst: @Sendable () -> Void
  private let onExit: @Sendable () -> Void

  init(
    deadline: Double = 10, onFirst: @escaping @Sendable () -> Void,
    onExit: @escaping @Sendable () -> Void
  ) {
    self.deadline = deadline
    self.onFirst = onFirst
    self.onExit = onExit
    for number in [SIGINT, SIGTERM] {
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
      source.setEventHandler { [unowned self] in self.signalled() }
      source.resume()
      sources.append(source)
    }
  }

  /// Whether a signal has asked the run to stop.
  var wasSignalled: Bool { received.withLock { $0 > 0 } }

  /// Stops watching; the signals' default actions are not restored (the process is ending).
  func stop() {
    queue.sync {
      for source in sources { source.cancel() }
    }
  }

  private func signalled() {
    let count = received.withLock { count in
      count += 1
      return count
    }
    if count == 1 {
      onFirst()
      queue.asyncAfter(deadline: .now() + deadline) { [onExit] in onExit() }
    } else {
      onExit()
    }
  }
}
