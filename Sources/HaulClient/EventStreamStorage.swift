import Dispatch
import Foundation
import Synchronization

/// The events read from one stream and not yet taken by its consumer, and the hand-over
/// between the stream's thread (`EventStreamReader`, which `push`es) and the consumer's task
/// (which awaits `next`).
///
/// Back-pressure: about `maxBufferedEvents` wait here (the reader queues a chunk of the
/// stream's events at a time). When the consumer falls that far
/// behind, `push` blocks the stream's thread, libcurl stops reading, and the daemon, seeing
/// its reader too far behind (docs/service.md, "Events"), cuts the stream; the reader reconnects after the last
/// event it queued, so the consumer misses nothing the daemon still holds (a `gap` event
/// says what it no longer holds).
///
/// Continuations and the semaphore are resumed and signalled after the lock is left, or
/// while holding it only where that cannot block (`DispatchSemaphore.signal`).
final class EventStreamStorage: Sendable {
  /// The consumer waiting in `next` (for one event) or in `nextBatch` (for all there are).
  private enum Waiter {
    case one(CheckedContinuation<Result<DaemonEvent?, DaemonError>, Never>)
    case batch(CheckedContinuation<Result<[DaemonEvent]?, DaemonError>, Never>)

    /// Hands over events (at least one; `.one` takes the first), the end of the stream
    /// (`nil`) or its failure.
    func resume(_ result: Result<[DaemonEvent]?, DaemonError>) {
      switch self {
      case .one(let continuation): continuation.resume(returning: result.map { $0?.first })
      case .batch(let continuation): continuation.resume(returning: result)
      }
    }
  }

  private struct State {
    var events: [DaemonEvent] = []
    /// The index in `events` of the next event to hand out.
    var head = 0
    /// The consumer, waiting for an event.
    var waiter: Waiter?
    var started = false
    /// The reader ended; `failure`, when set, is thrown once the buffered events are taken.
    var finished = false
    var failure: DaemonError?
    var cancelled = false
    /// The reader is blocked in `push`, waiting for room.
    var producerWaits = false

    var count: Int { events.count - head }

    /// What the consumer gets now: up to `most` events, the end (`nil`) or the failure; or
    /// `nil` when it must wait. Sets `signalRoom` when a blocked reader may go on.
    mutating func take(
      _ most: Int, signalRoom: inout Bool
    ) -> Result<[DaemonEvent]?, DaemonError>? {
      if cancelled { return .success(nil) }
      if count > 0 {
        let taken: [DaemonEvent]
        if head == 0, most >= events.count {
          taken = events
          events = []
        } else {
          let end = head + min(most, count)
          taken = Array(events[head..<end])
          head = end
          // Drop the events taken once they are half the array, so a queue that never
          // empties does not grow.
          if head == events.count {
            events.removeAll(keepingCapacity: true)
            head = 0
          } else if head >= 256, head * 2 >= events.count {
            events.removeFirst(head)
            head = 0
          }
        }
        if producerWaits {
          producerWaits = false
          signalRoom = true
        }
        return .success(taken)
      }
      guard finished else { return nil }
      defer { failure = nil }
      return failure.map { .failure($0) } ?? .success(nil)
    }
  }

  /// The most events held for a consumer that has not taken them yet.
  static let maxBufferedEvents = 1024

  /// Cancels the stream's transfer and back-off sleeps.
  let control = CallControl()
  let address: DaemonAddress
  let since: Int64?
  /// Whether `entry-started` and `entry-done` events are left out.
  let failuresOnly: Bool
  private let state = Mutex(State())
  /// Signalled when a blocked `push` may look for room again.
  private let room = DispatchSemaphore(value: 0)

  init(address: DaemonAddress, since: Int64?, failuresOnly: Bool) {
    self.address = address
    self.since = since
    self.failuresOnly = failuresOnly
  }

  /// How many events have arrived that `next()` has not handed out yet.
  var buffered: Int { state.withLock { $0.count } }

  /// The next event, the reader's failure, or `nil` once the stream ended or the awaiting
  /// task was cancelled (which ends the stream for good). Starts the reader on first use.
  func next() async -> Result<DaemonEvent?, DaemonError> {
    await take { wait(for: 1, as: .one($0)) }
  }

  /// Every event that has arrived and not been taken, at least one (waiting for it), or as
  /// `next()` the failure or `nil`: a consumer that writes events somewhere takes them a
  /// chunk of the stream at a time, not one by one.
  func nextBatch() async -> Result<[DaemonEvent]?, DaemonError> {
    await take { wait(for: .max, as: .batch($0)) }
  }

  /// Starts the reader on first use and waits as `waiting` says; `nil` at once, and the
  /// stream ended, when the task is cancelled before or while it waits.
  private func take<Value>(
    _ waiting: (CheckedContinuation<Result<Value?, DaemonError>, Never>) -> Void
  ) async -> Result<Value?, DaemonError> {
    if Task.isCancelled {
      cancel()
      return .success(nil)
    }
    startReader()
    return await withTaskCancellationHandler {
      await withCheckedContinuation { waiting($0) }
    } onCancel: {
      cancel()
    }
  }

  /// Resumes `waiter` with up to `most` events if there are some (or the end), else makes it
  /// the waiting consumer.
  private func wait(for most: Int, as waiter: Waiter) {
    var signalRoom = false
    let ready = state.withLock { state in
      let ready = state.take(most, signalRoom: &signalRoom)
      if ready == nil {
        precondition(state.waiter == nil, "two tasks iterate one DaemonEvents iterator")
        state.waiter = waiter
      }
      return ready
    }
    if signalRoom { room.signal() }
    if let ready { waiter.resume(ready) }
  }

  /// Ends the stream: the waiting consumer gets `nil`, buffered events are dropped, the
  /// reader's transfer and sleep are stopped, and a `push` blocked for room returns `false`.
  func cancel() {
    let waiter = state.withLock { state -> Waiter? in
      guard !state.cancelled else { return nil }
      state.cancelled = true
      state.events.removeAll()
      state.head = 0
      if state.producerWaits {
        state.producerWaits = false
        room.signal()
      }
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume(.success(nil))
    control.cancel()
  }

  /// Hands `events` (one chunk of the stream's) to the consumer, or queues them; blocks the
  /// calling thread (the reader's) while `maxBufferedEvents` are queued, so the queue holds
  /// at most that many and one chunk's more. Returns `false` once the stream is cancelled.
  func push(_ events: [DaemonEvent]) -> Bool {
    guard !events.isEmpty else { return true }
    while true {
      enum Outcome {
        case handed(Waiter)
        case queued, full, cancelled
      }
      let outcome = state.withLock { state -> Outcome in
        if state.cancelled { return .cancelled }
        if let waiter = state.waiter {
          // A consumer waits only on an empty queue.
          state.waiter = nil
          if case .one = waiter { state.events.append(contentsOf: events.dropFirst()) }
          return .handed(waiter)
        }
        if state.count < Self.maxBufferedEvents {
          state.events.append(contentsOf: events)
          return .queued
        }
        state.producerWaits = true
        return .full
      }
      switch outcome {
      case .handed(let waiter):
        waiter.resume(.success(events))
        return true
      case .queued:
        return true
      case .cancelled:
        return false
      case .full:
        room.wait()
      }
    }
  }

  /// The reader ended, with `failure` to throw once the buffered events are taken, or
  /// without (the stream was cancelled).
  func finish(_ failure: DaemonError?) {
    let waiter = state.withLock { state -> Waiter? in
      state.finished = true
      state.failure = failure
      guard state.count == 0, let waiter = state.waiter else { return nil }
      state.waiter = nil
      state.failure = nil
      return waiter
    }
    waiter?.resume(failure.map { .failure($0) } ?? .success(nil))
  }

  /// Starts the reader's thread, once.
  private func startReader() {
    let first = state.withLock { state in
      guard !state.started, !state.cancelled else { return false }
      state.started = true
      return true
    }
    guard first else { return }
    let thread = Thread { [self] in
      EventStreamReader(storage: self).run()
    }
    thread.name = "haul-client-events"
    thread.start()
  }
}
