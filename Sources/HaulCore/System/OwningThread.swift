#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The thread that owns some state, written down so that debug builds can check it (as
/// swift-nio's `EventLoop.preconditionInEventLoop` does); release builds store and check
/// nothing.
///
/// State that one thread owns for its whole life (a curl loop's) records its owner once, where
/// it is made; state that moves between threads (an exchange posted to a loop) is `adopt`ed by
/// each new owner, at the hand-over that orders the move (a lock, a mailbox).
package struct OwningThread: Sendable {
  #if DEBUG
    private var thread: pthread_t
  #endif

  /// Owned by the calling thread.
  @inline(__always)
  package init() {
    #if DEBUG
      thread = pthread_self()
    #endif
  }

  /// Whether the calling thread is the owner; always `true` in release builds.
  @inline(__always)
  package var isCurrent: Bool {
    #if DEBUG
      pthread_equal(thread, pthread_self()) != 0
    #else
      true
    #endif
  }

  /// Makes the calling thread the owner: the state has moved to it.
  @inline(__always)
  package mutating func adopt() {
    #if DEBUG
      thread = pthread_self()
    #endif
  }

  /// Stops a debug build when the calling thread is not the owner; nothing in release builds.
  @inline(__always)
  package func check(
    _ what: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line
  ) {
    #if DEBUG
      if !isCurrent {
        preconditionFailure("\(what()) used off the thread that owns it", file: file, line: line)
      }
    #endif
  }
}
