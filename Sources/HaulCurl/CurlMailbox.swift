internal import CCurl
import HaulCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The one way other threads talk to the loop thread: a locked queue of commands plus
/// `curl_multi_wakeup`, which interrupts `curl_multi_poll`.
///
/// Threading: every method may be called from any thread; `take`, `prepareToSleep` and
/// `close` only by the loop. The loop touches the lock only when commands are waiting, and
/// a poster calls `curl_multi_wakeup` outside the lock and only when the loop sleeps: a lock
/// held across that system call, or by a preempted thread, keeps the other side spinning.
///
/// No wake-up can reach a cleaned-up multi handle: `close` refuses new posts and waits
/// until no poster is between its check and the end of its wake-up before the loop calls
/// `curl_multi_cleanup`. The flags pair as in Dekker's algorithm: a poster publishes its
/// command and then reads `sleeping`; the loop publishes `sleeping` and then reads
/// `pending`; with sequentially consistent atomics one of them sees the other, so a command
/// is never left waiting while the loop sleeps.
final class CurlMailbox: Sendable {
  /// What other threads ask the loop to do.
  enum Command: Sendable {
    /// Start an exchange.
    case add(CurlExchange)
    /// Stop an exchange and finish it with `cancelled`.
    case cancel(CurlExchange)
    /// Begin these jobs, each carried on the loop from start to end.
    case jobs([any TransportJob])
    /// Stop the exchanges of every job in flight.
    case cancelJobs
    /// Start the exchanges held for an https origin that has since been settled
    /// (`CurlRoutes`).
    case released
    /// Finish everything, clean up, and end the thread; resumed when done.
    case shutdown(CheckedContinuation<Void, Never>)
  }

  /// The multi handle's address, used here only for `curl_multi_wakeup`, which libcurl
  /// documents as callable from any thread.
  // unchecked: only `curl_multi_wakeup` (thread-safe) uses it, never after `close`.
  private struct WakeTarget: @unchecked Sendable {
    let multi: UnsafeMutableRawPointer
  }

  private let commands = Mutex<[Command]>([])
  private let target: WakeTarget
  /// Whether `commands` holds anything; written under the lock, read without it.
  private let pending = Atomic<Bool>(false)
  /// Whether the loop is (about to be) asleep in `curl_multi_poll`: only then does a new
  /// command need `curl_multi_wakeup` (a send on curl's wake-up socket pair, and a receive
  /// on the loop's side); a busy loop picks commands up on its next turn anyway.
  private let sleeping = Atomic<Bool>(false)
  /// Set once by `close`: no command is taken any more.
  private let closed = Atomic<Bool>(false)
  /// Posters between their look at `closed` and the end of their wake-up.
  private let posting = Atomic<Int>(0)

  init(multi: UnsafeMutableRawPointer) {
    target = WakeTarget(multi: multi)
  }

  /// Queues `command` and wakes the loop if it sleeps. Returns `false` when the loop has
  /// closed the mailbox (the transport is shut down); the command was then not queued.
  func post(_ command: Command) -> Bool {
    posting.add(1, ordering: .sequentiallyConsistent)
    defer { posting.subtract(1, ordering: .sequentiallyConsistent) }
    guard !closed.load(ordering: .sequentiallyConsistent) else { return false }
    commands.withLock { queue in
      queue.append(command)
      pending.store(true, ordering: .sequentiallyConsistent)
    }
    if sleeping.exchange(false, ordering: .sequentiallyConsistent) {
      curl_multi_wakeup(target.multi)
    }
    return true
  }

  /// Moves every queued command into `batch` (which must be empty), keeping both arrays'
  /// storage so a wake-up allocates nothing. The loop is awake when it calls this.
  func take(into batch: inout [Command]) {
    sleeping.store(false, ordering: .sequentiallyConsistent)
    guard pending.load(ordering: .sequentiallyConsistent) else { return }
    commands.withLock { queue in
      swap(&queue, &batch)
      pending.store(false, ordering: .sequentiallyConsistent)
    }
  }

  /// Called by the loop just before `curl_multi_poll`: returns `false` when commands are
  /// already waiting (the loop should not sleep); otherwise marks it asleep, so that the next
  /// `post` wakes it. A wake-up sent before the poll starts makes the poll return at once.
  func prepareToSleep() -> Bool {
    sleeping.store(true, ordering: .sequentiallyConsistent)
    guard pending.load(ordering: .sequentiallyConsistent) else { return true }
    sleeping.store(false, ordering: .sequentiallyConsistent)
    return false
  }

  /// Refuses further commands, waits for posters still inside `post`, and returns the
  /// commands still queued. Called once, by the loop, before `curl_multi_cleanup`.
  func close() -> [Command] {
    closed.store(true, ordering: .sequentiallyConsistent)
    while posting.load(ordering: .sequentiallyConsistent) > 0 { sched_yield() }
    return commands.withLock { queue in
      defer { queue = [] }
      return queue
    }
  }
}
