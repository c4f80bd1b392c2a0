import Foundation
import HaulCore
import Synchronization
import Testing

/// The owner of loop-bound state is the thread that made it, or the one that adopted it; a
/// debug build knows which, a release build checks nothing.
@Suite("LoopBound: state one thread owns, checked in debug builds")
struct LoopBoundTests {
  /// Runs `work` on a thread of its own and returns what it returned.
  private func onAnotherThread<T: Sendable>(_ work: @escaping @Sendable () -> T) -> T {
    let result = Mutex<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    Thread {
      let value = work()
      result.withLock { $0 = value }
      done.signal()
    }.start()
    done.wait()
    return result.withLock { $0! }
  }

  @Test func the_thread_that_makes_it_owns_it_and_reads_and_writes_it() {
    @LoopBound var count = 1
    count += 1
    #expect(count == 2)
    #expect(_count.isOwnedHere)
  }

  #if DEBUG
    @Test func another_thread_does_not_own_it_until_it_adopts_it() {
      let owner = OwningThread()
      #expect(owner.isCurrent)
      let seen = onAnotherThread { () -> [Bool] in
        var moved = owner
        let before = moved.isCurrent
        moved.adopt()
        return [before, moved.isCurrent]
      }
      #expect(seen == [false, true])
    }
  #endif
}
