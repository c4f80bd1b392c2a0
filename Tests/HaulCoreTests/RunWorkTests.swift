import Synchronization
import Testing

@testable import HaulCore

/// The run's task group (`RunWork`): what is added runs as a child, the run returns only
/// once every child ended, and cancelling cancels them all, those added later included.
@Suite("RunWork: the run's task group")
struct RunWorkTests {
  @Test(.timeLimit(.minutes(1)))
  func work_added_by_the_main_work_runs_before_the_run_returns() async {
    let work = RunWork()
    let ran = Mutex<[Int]>([])
    await work.run {
      for index in 0..<20 {
        work.add(.task) { ran.withLock { $0.append(index) } }
      }
    }
    #expect(ran.withLock { $0.sorted() } == Array(0..<20))
    #expect(work.alive == (0, 0))
  }

  @Test(.timeLimit(.minutes(1)))
  func cancelling_cancels_every_child_and_those_added_after() async {
    let work = RunWork()
    let cancelled = Mutex(0)
    let (started, starter) = AsyncStream.makeStream(of: Void.self)
    await work.run {
      work.add(.task) {
        starter.yield()
        // Asleep far longer than the test: only cancellation ends it.
        try? await Task.sleep(for: .seconds(600))
        if Task.isCancelled { cancelled.withLock { $0 += 1 } }
      }
      for await _ in started { break }
      work.cancel()
      work.add(.task) { if Task.isCancelled { cancelled.withLock { $0 += 1 } } }
      // The main work is a child too.
      try? await Task.sleep(for: .seconds(600))
    }
    #expect(cancelled.withLock { $0 } == 2)
    #expect(work.alive == (0, 0))
  }

  @Test(.timeLimit(.minutes(1)))
  func a_timer_left_when_the_main_work_returns_is_cancelled() async {
    let work = RunWork()
    await work.run {
      work.add(.timer) { try? await Task.sleep(for: .seconds(600)) }
    }
    #expect(work.alive == (0, 0))
    #expect(!work.add(.timer) {})
  }
}
