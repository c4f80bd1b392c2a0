import Synchronization

/// Receives a run's events as they happen, one call at a time, in the order each entry
/// produced them (see `Scheduler.run(_:onEvent:)`).
///
/// The cheap way to watch a run: a call under a lock instead of an `AsyncStream` element,
/// which costs a buffer, generic runtime work and often a thread wake-up per event, and a
/// run of small files has two events per file.
public typealias TransferEventHandler = @Sendable (TransferEvent) -> Void

/// Calls a handler under a lock, so events from concurrent entries arrive one at a time.
final class SerializedEventHandler: Sendable {
  private let lock = Mutex(())
  private let handler: TransferEventHandler

  init(_ handler: @escaping TransferEventHandler) {
    self.handler = handler
  }

  func callAsFunction(_ event: TransferEvent) {
    lock.withLock { _ in handler(event) }
  }
}
