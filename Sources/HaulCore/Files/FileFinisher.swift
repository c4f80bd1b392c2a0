import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Puts finished downloads in place on threads of its own: with `--fsync`, an attempt's
/// completion (its checks, the `fsync` of the file, the rename, the `fsync` of the folder)
/// runs here, so that the curl loop thread that received the last byte goes on moving every
/// other transfer while the disk syncs, and a task waiting for it holds no thread of Swift's
/// pool.
///
/// Why threads and not the loop: a loop thread runs all the transfers of its multi handle,
/// one callback at a time, and an `fsync` waits for the disk; on a slow disk every transfer
/// on that loop stood still for each file synced. Several threads, because a disk serves
/// syncs side by side (a journal commits the ones that wait together at once), where one
/// thread would sync one file at a time.
///
/// Bounded without a limit of its own: each item is the completion of an entry that still
/// holds its slot (the slot is given back once the file is in place), so no more wait than
/// the run has slots. Ordered per file: an entry's completion is one item, and the entry
/// does nothing else until that item has run.
///
/// Threading: `submit` from any thread; `FinisherQueue` (under one lock) says which thread
/// runs what. Threads start as items come, at most `threads`, and leave once `stop()` was
/// called and nothing waits.
package final class FileFinisher: Sendable {
  package typealias Work = @Sendable () -> Void

  /// The most threads that finish files at once, by default.
  package static let threads = 4

  private struct State {
    var queue: FinisherQueue<Work>
    /// Who waits in `stop()` for the last thread to leave.
    var stopping: [CheckedContinuation<Void, Never>] = []

    /// Takes the waiters of `stop()`, once the last thread has left.
    mutating func drainStopping() -> [CheckedContinuation<Void, Never>] {
      defer { stopping = [] }
      return stopping
    }
  }

  private let state: Mutex<State>
  private let wake = DispatchSemaphore(value: 0)

  /// A finisher of at most `threads` threads.
  package init(threads: Int = FileFinisher.threads) {
    state = Mutex(State(queue: FinisherQueue(limit: threads)))
  }

  /// Runs `work` on one of the finisher's threads, in the order submitted (several threads
  /// may run items side by side).
  package func submit(_ work: @escaping Work) {
    switch state.withLock({ $0.queue.submit(work) }) {
    case .startThread: start()
    case .wakeOne: wake.signal()
    case .none: break
    }
  }

  /// Runs `work` on a finisher thread and returns its result, for a task.
  package func perform<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
      submit { continuation.resume(returning: work()) }
    }
  }

  /// Lets the threads leave once nothing waits, and returns when the last has left: every
  /// item submitted before has run (a state write queued by a failed transfer too). Items
  /// submitted later still run.
  package func stop() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let (woken, left) = state.withLock { state in
        let woken = state.queue.stop()
        let left = state.queue.threads == 0
        if !left { state.stopping.append(continuation) }
        return (woken, left)
      }
      for _ in 0..<woken { wake.signal() }
      if left { continuation.resume() }
    }
  }

  private func start() {
    var thread = pthread_t()
    let box = Unmanaged.passRetained(self)
    guard pthread_create(&thread, nil, fileFinisherMain, box.toOpaque()) == 0 else {
      box.release()
      // No thread: what waits runs on the caller's thread, as it would without a finisher.
      let stopping = state.withLock { state in
        state.queue.threadFailed()
        return state.queue.threads == 0 ? state.drainStopping() : []
      }
      while let work = state.withLock({ $0.queue.take() }) { work() }
      for waiter in stopping { waiter.resume() }
      return
    }
    pthread_detach(thread)
  }

  /// A thread's loop, as `FinisherQueue.next()` says.
  fileprivate func run() {
    while true {
      let (step, stopping) = state.withLock { state in
        let step = state.queue.next()
        guard case .leave = step, state.queue.threads == 0 else {
          return (step, [CheckedContinuation<Void, Never>]())
        }
        return (step, state.drainStopping())
      }
      switch step {
      case .run(let work): work()
      case .sleep: wake.wait()
      case .leave:
        for waiter in stopping { waiter.resume() }
        return
      }
    }
  }
}

/// A finisher thread's entry point; `argument` is a retained `FileFinisher`.
private func fileFinisherMain(_ argument: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
  guard let argument else { return nil }
  WorkerThreadSignals.block()
  Unmanaged<FileFinisher>.fromOpaque(argument).takeRetainedValue().run()
  return nil
}
