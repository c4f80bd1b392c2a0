import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Feeds a large download's digests on a thread of its own, reading back from the partial
/// file what the transport has just written, so that hashing runs beside the network
/// instead of after each chunk on the transport's one loop thread.
///
/// Why: computed inline, a large download's digests take its loop thread's time serially
/// with receiving and writing; `Benchmarks/run`'s `single` workload measures the difference.
/// The bytes are read back
/// with `pread` from the page cache, which costs a copy, far less than the digest.
///
/// Threading: `advance(to:)` is called by the sink on the transport thread; `finish()` by
/// the entry's task once the exchange returned; `abandon()` by whoever drops it unfinished.
/// The worker owns a `dup` of the descriptor, so closing the caller's does not affect it.
final class DigestWorker: Sendable {
  private struct State {
    /// Bytes of the file known written.
    var written: Int64
    /// Bytes fed to the hasher so far.
    var hashed: Int64
    /// No more bytes will come: finish at `written`.
    var closed = false
    /// Stop at once; nobody wants the digest.
    var abandoned = false
    /// Reading the file failed (it shrank, or an I/O error).
    var failed = false
    /// The worker thread has left its loop; a later `finish` gets `nil` at once.
    var exited = false
    var waiter: CheckedContinuation<DigestValues?, Never>?
  }

  /// Read-back size: large enough that the digest, not the syscall, dominates.
  static let chunk = 256 << 10

  private let state: Mutex<State>
  private let wake = DispatchSemaphore(value: 0)
  private let fd: Int32
  private let hasher: DigestSet

  /// Starts hashing the file behind `fd` from `start`; `hasher` holds its first `start`
  /// bytes and is only touched by the worker from now on. `nil` when no thread could start.
  init?(fd: Int32, start: Int64, hasher: DigestSet) {
    let own = dup(fd)
    guard own >= 0 else { return nil }
    self.fd = own
    self.hasher = hasher
    state = Mutex(State(written: start, hashed: start))
    var thread = pthread_t()
    let box = Unmanaged.passRetained(self)
    guard pthread_create(&thread, nil, digestWorkerMain, box.toOpaque()) == 0 else {
      box.release()
      close(own)
      return nil
    }
    pthread_detach(thread)
  }

  /// The file now holds `offset` bytes; the worker catches up.
  func advance(to offset: Int64) {
    state.withLock { $0.written = max($0.written, offset) }
    wake.signal()
  }

  /// Waits until every written byte is hashed and returns the digests, or `nil` when the
  /// file could not be read back.
  func finish() async -> DigestValues? {
    await withCheckedContinuation { continuation in
      let exited = state.withLock { state in
        state.closed = true
        if !state.exited { state.waiter = continuation }
        return state.exited
      }
      if exited { continuation.resume(returning: nil) }
      wake.signal()
    }
  }

  /// Stops the worker without a digest (the exchange failed or started over).
  func abandon() {
    state.withLock { $0.abandoned = true }
    wake.signal()
  }

  /// The worker thread's loop.
  fileprivate func run() {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunk, alignment: 64)
    defer {
      buffer.deallocate()
      close(fd)
    }
    while true {
      let (from, to, stop) = state.withLock { ($0.hashed, $0.written, $0.abandoned || $0.failed) }
      if stop { break }
      if from < to {
        let wanted = Int(min(Int64(Self.chunk), to - from))
        let count = pread(fd, buffer.baseAddress, wanted, off_t(from))
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else {
          state.withLock { $0.failed = true }
          break
        }
        hasher.update(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        state.withLock { $0.hashed += Int64(count) }
        continue
      }
      if state.withLock({ $0.closed && $0.hashed >= $0.written }) { break }
      wake.wait()
    }
    let (waiter, ok) = state.withLock { state in
      state.exited = true
      let waiter = state.waiter
      state.waiter = nil
      return (waiter, !state.failed && !state.abandoned)
    }
    waiter?.resume(returning: ok ? hasher.finalize() : nil)
  }
}

/// The worker thread's entry point; `argument` is a retained `DigestWorker`.
private func digestWorkerMain(_ argument: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
  guard let argument else { return nil }
  WorkerThreadSignals.block()
  Unmanaged<DigestWorker>.fromOpaque(argument).takeRetainedValue().run()
  return nil
}
