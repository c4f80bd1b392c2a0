import CDispatchQueue
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Creates, starts and cancels a session's tasks away from Swift's threads, and promptly,
/// even while a body floods the session.
///
/// Why away: corelibs' `URLSession.dataTask(with:)` and `URLSessionTask.resume()` wait
/// (`workQueue.sync`) for the session's work queue, as `cancel()` does in some releases. A
/// caller waiting there holds its thread, and Swift's pool has about one per core: a few
/// transfers starting while another streams under `--max-rate` can hold every thread of the
/// pool, and nothing else (a SIGINT's cancel among it) runs until that body ends.
///
/// Why promptly: corelibs runs libcurl's socket sources on a serial queue that targets the
/// work queue (`MultiHandle.isolation`). libdispatch drains such a queue until it is empty
/// before the work queue runs anything else, and a socket that is never empty (a body
/// arriving faster than libcurl reads it; libcurl 7.88 makes up to 100 reads of 16 KiB per
/// readiness event while the socket stays readable) keeps it from ever being empty: a
/// cancel of an endless body would wait as long as the body flows, and under `--max-rate` a
/// task started beside a capped body would wait until that body ends. So a waiting call
/// asks for room: the next body chunk the
/// session hands to the delegate queue (`BoundedOperationQueue.addOperation`, called on that
/// socket queue's thread) suspends the socket queue, which ends its drain after the current
/// event (under `--max-rate`, up to 100 paced chunks: a step of up to 1.6 MB at the cap's
/// pace); the work queue runs the waiting call, and the socket queue is resumed once no call
/// waits any longer. The session's other transfers pause for that moment only. The queue is
/// recognised by its label; should corelibs run the callback elsewhere, nothing is suspended
/// and calls wait as before.
///
/// Starts (and the answer to a declined challenge, which cancels its task) run in order on a
/// serial queue of their own, which, unlike Swift's pool, always gets a thread. Each cancel
/// runs on a thread of its own: it is rare (one per failed or cancelled exchange), and must
/// not queue behind starts.
final class TaskControl: Sendable {
  /// The label corelibs gives the queue of libcurl's socket sources.
  static let socketQueueLabel = "MultiHandle.isolation"

  private struct State {
    /// Calls started and not returned.
    var pending = 0
    /// The socket queue, suspended and retained, while calls are pending.
    var suspended: UnsafeMutableRawPointer?
  }

  private let state = Mutex(State())
  /// `state.pending`, readable without the lock on every body chunk.
  private let pending = Atomic(0)
  private let calls = DispatchQueue(label: "haul.urlsession.calls")

  /// Runs `body`, which waits for the work queue (creating and resuming a task, answering a
  /// challenge), on the queue of such calls; returns at once.
  func call(_ body: @escaping @Sendable () -> Void) {
    willCall()
    calls.async { [self] in
      body()
      didCall()
    }
  }

  /// Cancels `task` on a thread of its own; returns at once.
  func cancel(_ task: URLSessionTask) {
    willCall()
    let thread = Thread { [self] in
      task.cancel()
      didCall()
    }
    thread.name = "haul.urlsession.cancel"
    thread.start()
  }

  /// Suspends the socket queue running the caller when a call is waiting for the work
  /// queue. Called from corelibs' body callback, on the session's work queue.
  func makeRoomIfAsked() {
    guard pending.load(ordering: .relaxed) > 0 else { return }
    state.withLock { state in
      guard state.pending > 0, state.suspended == nil,
        let queue = haul_current_queue_labelled(Self.socketQueueLabel)
      else { return }
      haul_queue_suspend(queue)
      state.suspended = queue
    }
  }

  private func willCall() {
    state.withLock { $0.pending += 1 }
    pending.add(1, ordering: .relaxed)
  }

  private func didCall() {
    let queue: UnsafeMutableRawPointer? = state.withLock { state in
      state.pending -= 1
      guard state.pending == 0 else { return nil }
      defer { state.suspended = nil }
      return state.suspended
    }
    pending.subtract(1, ordering: .relaxed)
    if let queue { haul_queue_resume_and_release(queue) }
  }
}
