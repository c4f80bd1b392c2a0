internal import CCurl
import Dispatch
import Synchronization

/// What the task awaiting a call and the thread running it share: whether the call is
/// cancelled, and how to wake the thread when it is.
///
/// `cancel` may come from any thread (a task's cancellation handler, an iterator going away).
/// It wakes the call's `curl_multi_poll` at once (`curl_multi_wakeup`, which libcurl allows
/// from any thread) and any back-off sleep (`sleep`); the thread then sees `isCancelled` and
/// stops the transfer. The multi handle is attached and detached under the lock, so `cancel`
/// never wakes a handle that is being freed.
final class CallControl: Sendable {
  private struct State {
    var cancelled = false
    /// The multi handle of the running transfer, while it runs.
    var multi: WakeableMulti?
  }

  /// A multi handle that `cancel` may wake from any thread: the only call made through it
  /// elsewhere than on the owning thread is `curl_multi_wakeup`, which libcurl makes
  /// thread-safe, and it is made under the lock that `detach` takes before the handle is freed.
  // unchecked: only `curl_multi_wakeup` (thread-safe) crosses threads, under `detach`'s lock.
  private struct WakeableMulti: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
  }

  private let state = Mutex(State())
  /// Signalled once, by `cancel`, to end a `sleep` early.
  private let wakeup = DispatchSemaphore(value: 0)

  var isCancelled: Bool { state.withLock { $0.cancelled } }

  /// Marks the call cancelled and wakes its thread. Only the first call does anything.
  func cancel() {
    let first = state.withLock { state in
      guard !state.cancelled else { return false }
      state.cancelled = true
      if let multi = state.multi { _ = curl_multi_wakeup(multi.pointer) }
      return true
    }
    if first { wakeup.signal() }
  }

  /// Lets `cancel` wake `multi` from now on; `false` when the call is already cancelled.
  func attach(_ multi: UnsafeMutableRawPointer) -> Bool {
    let multi = WakeableMulti(pointer: multi)
    return state.withLock { state in
      guard !state.cancelled else { return false }
      state.multi = multi
      return true
    }
  }

  /// Stops `cancel` from touching the multi handle, before it is freed.
  func detach() {
    state.withLock { $0.multi = nil }
  }

  /// Waits `seconds` on the calling thread, or less when the call is cancelled meanwhile;
  /// returns `false` when it is cancelled.
  func sleep(seconds: Double) -> Bool {
    guard !isCancelled else { return false }
    _ = wakeup.wait(timeout: .now() + seconds)
    return !isCancelled
  }
}
