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
final class FileFinisher: Sendable {
  typealias Work = @Sendable () -> Void

  /// The most threads that finish files at once.
  static let threads = 4

  private let queue = Mutex(FinisherQueue<Work>(limit: FileFinisher.threads))
  private let wake = DispatchSemaphore(value: 0)

  init() {}

  /// Runs `work` on one of the finisher's threads, in the order submitted (several threads
  /// may run items side by side).
  func submit(_ work: @escaping Work) {
    switch queue.withLock({ $0.submit(work) }) {
    case .startThread: start()
    case .wakeOne: wake.signal()
    case .none: break
    }
  }

  /// Runs `work` on a finisher thread and returns its result, for a task.
  func perform<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
      submit { continuation.resume(returning: work()) }
    }
  }

  /// Lets the threads leave once nothing waits; items submitted later still run.
  func stop() {
    let woken = queue.withLock { $0.stop() }
    for _ in 0..<woken { wake.signal() }
  }

  private func start() {
    var thread = pthread_t()
    let box = Unmanaged.passRetained(self)
    guard pthread_create(&thread, nil, fileFinisherMain, box.toOpaque()) == 0 else {
      box.release()
      // No thread: what waits runs on the caller's thread, as it would without a finisher.
      queue.withLock { $0.threadFailed() }
      while let work = queue.withLock({ $0.take() }) { work() }
      return
    }
    pthread_detach(thread)
  }

  /// A thread's loop, as `FinisherQueue.next()` says.
  fileprivate func run() {
    while true {
      switch queue.withLock({ $0.next() }) {
      case .run(let work): work()
      case .sleep: wake.wait()
      case .leave: return
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
