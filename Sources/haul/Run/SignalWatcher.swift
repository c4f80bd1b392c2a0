import Dispatch
import Glibc
import Synchronization

/// Turns SIGINT and SIGTERM into a graceful stop, and a second one into an immediate exit.
///
/// The default handlers are ignored and the signals are delivered through `DispatchSource`s
/// on a private serial queue, so the handlers run as ordinary code (not in signal context).
/// The first signal calls `onFirst` (cancel the scheduler) and arms a watchdog: once the run
/// has made no step towards its end (`progressed()`) for `deadline` seconds, `onExit` runs as
/// if a second signal had come. `onExit` must end the process (restore the terminal, then
/// `_exit(130)`).
///
/// Why steps rather than one deadline from the signal: after a signal every entry that did
/// not finish is recorded as `cancelled`, its `--events` line written, and the report and
/// `--failed` are written; on a long manifest, a slow events reader or a loaded machine that
/// takes longer than any fixed deadline, and cutting it off would leave neither file. A run
/// that is stuck (a transfer that will not end, an events reader that reads nothing) makes no
/// step, and exits `deadline` seconds after its last one.
///
/// The dispatch sources are set up in `init` and only cancelled afterwards (dispatch sources
/// are thread-safe); the signal count is behind a `Mutex`, the step count atomic, and the
/// watchdog's own state lives on `queue`.
// unchecked: a Mutex, an atomic, thread-safe dispatch sources, and state that `queue` owns.
final class SignalWatcher: @unchecked Sendable {
  /// How often the watchdog looks at the step count, in seconds: it exits at most this long
  /// after `deadline` seconds without a step.
  static let checkInterval = 0.5

  private let queue = DispatchQueue(label: "haul.signals")
  private var sources: [any DispatchSourceSignal] = []
  private let received = Mutex(0)
  private let steps = Atomic(0)
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

  /// Records one step of the run towards its end (an entry's outcome recorded, `--events`
  /// lines written, an output written): after a signal, the watchdog waits `deadline` seconds
  /// from the last step. Cheap enough for every event; callable from any thread.
  func progressed() {
    steps.wrappingAdd(1, ordering: .relaxed)
  }

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
      watch(seen: steps.load(ordering: .relaxed), since: .now())
    } else {
      onExit()
    }
  }

  /// Runs `onExit` once `deadline` seconds have passed since `since`, when the step count was
  /// `seen`, without a further step; every `checkInterval` seconds, on `queue`.
  private func watch(seen: Int, since: DispatchTime) {
    queue.asyncAfter(deadline: .now() + Self.checkInterval) { [self] in
      let now = steps.load(ordering: .relaxed)
      if now != seen {
        watch(seen: now, since: .now())
      } else if DispatchTime.now() >= since + deadline {
        onExit()
      } else {
        watch(seen: seen, since: since)
      }
    }
  }
}
