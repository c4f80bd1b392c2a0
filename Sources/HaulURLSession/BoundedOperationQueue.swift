import Dispatch
import Foundation

/// The delegate queue of a transport's session: serial, and it makes URLSession wait when
/// `capacity` callbacks are already queued. That wait is the only back-pressure URLSession
/// on Linux can be given.
///
/// Why: corelibs' libcurl write callback hands each body chunk (at most 16 KiB) to the
/// delegate queue with `addOperation` and returns at once; it never pauses the transfer. A
/// sink slower than the network would let chunks pile up in memory without bound, as much
/// of a body as the network delivers ahead of the disk. The callback runs on the session's
/// work queue, so blocking there stops libcurl from reading the socket until the delegate
/// queue catches up, and TCP flow control slows the server.
///
/// Threading: `addOperation(_:)` blocks only callers other than this queue itself (a
/// callback that enqueues more work must never wait for itself). Code on this queue must not
/// wait for the session's work queue either (`URLSessionTask.cancel()` does, with
/// `workQueue.sync`): while the work queue waits here for a free slot, that would deadlock.
/// Such calls are sent to another queue; starts and cancels go through `control`, which
/// also makes room for them on the work queue from here. `addUnboundedOperation(_:)` never
/// waits, for haul's own bookkeeping from Swift tasks.
///
/// The operations run on a private serial dispatch queue (`underlyingQueue`), not on the
/// global pool corelibs would use: libdispatch on Linux gives that pool about one thread per
/// core and adds more only when its monitor sees them blocked, about a second later. The
/// session's work queue, blocked here waiting for a slot, holds one of those threads, and
/// on a machine of few cores the delegate queue would then wait for the monitor to add a
/// thread each time the queue fills. A queue of our own targets the overcommitting pool,
/// which always finds a thread.
// unchecked: OperationQueue is thread-safe, and what this adds is a semaphore and `TaskControl`.
final class BoundedOperationQueue: OperationQueue, @unchecked Sendable {
  /// Callbacks queued at most before URLSession is made to wait: 64 chunks of at most
  /// 16 KiB bound the backlog near 1 MiB per session.
  static let capacity = 64

  /// Free slots. Created empty and filled up, so its "original value" is zero and libdispatch
  /// never objects to it being released while slots are taken.
  private let slots = DispatchSemaphore(value: 0)

  /// Where the operations run (`underlyingQueue` does not keep it alive).
  private let executionQueue = DispatchQueue(label: "haul.urlsession.delegate")

  /// Starts and cancels the session's tasks (see `TaskControl`).
  let control = TaskControl()

  override init() {
    super.init()
    maxConcurrentOperationCount = 1
    underlyingQueue = executionQueue
    for _ in 0..<Self.capacity { slots.signal() }
  }

  override func addOperation(_ block: @escaping @Sendable () -> Void) {
    guard OperationQueue.current !== self else {
      super.addOperation(block)
      return
    }
    control.makeRoomIfAsked()
    slots.wait()
    let slots = self.slots
    super.addOperation {
      block()
      slots.signal()
    }
  }

  /// Queues `block` without waiting for a free slot.
  func addUnboundedOperation(_ block: @escaping @Sendable () -> Void) {
    super.addOperation(block)
  }
}
