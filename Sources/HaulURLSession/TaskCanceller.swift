import CDispatchQueue
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Cancels a session's tasks promptly, even while a body floods the session.
///
/// Why: corelibs' `URLSessionTask.cancel()` waits (`workQueue.sync`) for the session's work
/// queue, and corelibs runs libcurl's socket sources on a serial queue that targets it
/// (`MultiHandle.isolation`). libdispatch drains such a queue until it is empty before the
/// work queue runs anything else, and a socket that is never empty (a body arriving faster
/// than libcurl reads it, one 16 KiB read per readiness event) keeps it from ever being
/// empty: an endless body past its size was read for a minute (20 GB from a local server)
/// before the cancel got its turn, and nothing else of the session ran meanwhile. corelibs
/// gives the body callback no way to abort the transfer either.
///
/// So a cancel asks for room: the next body chunk the session hands to the delegate queue
/// (`BoundedOperationQueue.addOperation`, called on that socket queue's thread) suspends the
/// socket queue, which ends its drain after the current event; the work queue runs the
/// cancel, and the socket queue is resumed as soon as `cancel()` returns. The session's
/// other transfers pause for that moment only. The queue is recognised by its label; should
/// corelibs run the callback elsewhere, nothing is suspended and the cancel waits as before.
///
/// Each cancel runs on a thread of its own, not the global dispatch pool: a busy work queue
/// can keep `cancel()` waiting, and the pool's few threads (about one per core) are also the
/// ones Swift's executor runs on (with four transfers cancelled at once under `--max-rate`,
/// the run's own tasks once waited behind the blocked cancels past the 10 s exit deadline).
/// A cancel is rare (one per failed or cancelled exchange),
/// so a thread is cheap.
final class TaskCanceller: Sendable {
  /// The label corelibs gives the queue of libcurl's socket sources.
  static let socketQueueLabel = "MultiHandle.isolation"

  private struct State {
    /// Cancels started and not returned.
    var pending = 0
    /// The socket queue, suspended and retained, while cancels are pending.
    var suspended: UnsafeMutableRawPointer?
  }

  private let state = Mutex(State())
  /// `state.pending`, readable without the lock on every body chunk.
  private let pending = Atomic(0)

  /// Cancels `task` on a thread of its own; returns at once.
  func cancel(_ task: URLSessionTask) {
    state.withLock { $0.pending += 1 }
    pending.add(1, ordering: .relaxed)
    let thread = Thread { [self] in
      task.cancel()
      let queue: UnsafeMutableRawPointer? = state.withLock { state in
        state.pending -= 1
        guard state.pending == 0 else { return nil }
        defer { state.suspended = nil }
        return state.suspended
      }
      pending.subtract(1, ordering: .relaxed)
      if let queue { haul_queue_resume_and_release(queue) }
    }
    thread.name = "haul.urlsession.cancel"
    thread.start()
  }

  /// Suspends the socket queue running the caller when a cancel is waiting for the work
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
}
