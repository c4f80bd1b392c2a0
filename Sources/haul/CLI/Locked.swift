import Synchronization

/// A value that several tasks reach, one at a time, through a lock: the state an event
/// handler builds while the scheduler's tasks call it.
final class Locked<Value>: Sendable {
  private let mutex: Mutex<Value>

  init(_ value: sending Value) {
    mutex = Mutex(value)
  }

  func withLock<Result>(_ body: (inout sending Value) -> sending Result) -> sending Result {
    mutex.withLock { body(&$0) }
  }
}
