internal import CCurl
import Synchronization

/// The one way other threads talk to the loop thread: a locked queue of commands plus
/// `curl_multi_wakeup`, which interrupts `curl_multi_poll`.
///
/// Threading: every method may be called from any thread. The wake-up happens under the
/// lock, so it can never reach a multi handle the loop has already cleaned up: the loop
/// closes the mailbox (under the same lock) before `curl_multi_cleanup`.
final class CurlMailbox: Sendable {
  /// What other threads ask the loop to do.
  enum Command: Sendable {
    /// Start an exchange.
    case add(CurlExchange)
    /// Stop an exchange and finish it with `cancelled`.
    case cancel(CurlExchange)
    /// Finish everything, clean up, and end the thread; resumed when done.
    case shutdown(CheckedContinuation<Void, Never>)
  }

  /// The multi handle's address, used here only for `curl_multi_wakeup`, which libcurl
  /// documents as callable from any thread.
  private struct WakeTarget: @unchecked Sendable {
    let multi: UnsafeMutableRawPointer
  }

  private struct State: ~Copyable {
    var commands: [Command] = []
    /// The multi handle to wake, or `nil` once the loop has closed the mailbox.
    var target: WakeTarget?
    /// Whether the loop is (about to be) asleep in `curl_multi_poll`: only then does a new
    /// command need `curl_multi_wakeup` (a send on curl's wake-up socket pair, and a
    /// receive on the loop's side); a busy loop picks commands up on its next turn anyway.
    var sleeping = false
  }

  private let state: Mutex<State>

  init(multi: UnsafeMutableRawPointer) {
    state = Mutex(State(target: WakeTarget(multi: multi)))
  }

  /// Queues `command` and wakes the loop if it sleeps. Returns `false` when the loop has
  /// closed the mailbox (the transport is shut down); the command was then not queued.
  func post(_ command: Command) -> Bool {
    state.withLock { state in
      guard let target = state.target else { return false }
      state.commands.append(command)
      if state.sleeping {
        state.sleeping = false
        curl_multi_wakeup(target.multi)
      }
      return true
    }
  }

  /// Moves every queued command into `batch` (which must be empty), keeping both arrays'
  /// storage so a wake-up allocates nothing. The loop is awake when it calls this.
  func take(into batch: inout [Command]) {
    state.withLock { state in
      state.sleeping = false
      swap(&state.commands, &batch)
    }
  }

  /// Called by the loop just before `curl_multi_poll`: returns `false` when commands are
  /// already waiting (the loop should not sleep); otherwise marks it asleep, so that the next
  /// `post` wakes it. A wake-up sent before the poll starts makes the poll return at once.
  func prepareToSleep() -> Bool {
    state.withLock { state in
      guard state.commands.isEmpty else { return false }
      state.sleeping = true
      return true
    }
  }

  /// Refuses further commands and returns those still queued. Called once, by the loop.
  func close() -> [Command] {
    state.withLock { state in
      state.target = nil
      let rest = state.commands
      state.commands = []
      return rest
    }
  }
}
