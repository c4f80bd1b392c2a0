import Testing

@testable import HaulServe

@Suite struct JobQueueTests {
  private func states(_ queue: JobQueue) -> [String] {
    queue.items.map { "\($0.id):\($0.state.rawValue)\($0.running ? "*" : "")" }
  }

  @Test func jobsStartInQueueOrderOneAtATime() {
    var queue = JobQueue(maxRunning: 1)
    #expect(queue.add("a") == [.start("a")])
    #expect(queue.add("b") == [])
    #expect(queue.add("c") == [])
    #expect(states(queue) == ["a:active*", "b:waiting", "c:waiting"])
    #expect(queue.runEnded("a", failed: false, interrupted: false) == [.start("b")])
    #expect(queue.runEnded("b", failed: true, interrupted: false) == [.start("c")])
    #expect(states(queue) == ["a:complete", "b:error", "c:active*"])
  }

  @Test func severalRunsGoWhenAllowed() {
    var queue = JobQueue(maxRunning: 2)
    #expect(queue.add("a") == [.start("a")])
    #expect(queue.add("b") == [.start("b")])
    #expect(queue.add("c") == [])
    #expect(queue.runEnded("b", failed: false, interrupted: false) == [.start("c")])
  }

  @Test func pausingTheActiveJobStopsItAndTheNextStartsOnlyOnceItsRunEnded() throws {
    var queue = JobQueue(maxRunning: 1)
    _ = queue.add("a")
    _ = queue.add("b")
    #expect(try queue.pause("a") == [.stop("a")])
    #expect(states(queue) == ["a:paused*", "b:waiting"])
    #expect(queue.runEnded("a", failed: false, interrupted: true) == [.start("b")])
    #expect(states(queue) == ["a:paused", "b:active*"])
    // Resumed, it waits for its turn: b's run is going.
    #expect(try queue.resume("a") == [])
    #expect(queue.runEnded("b", failed: false, interrupted: false) == [.start("a")])
  }

  @Test func aJobResumedBeforeItsRunStoppedStartsAgainWhenTheRunEnds() throws {
    var queue = JobQueue(maxRunning: 1)
    _ = queue.add("a")
    #expect(try queue.pause("a") == [.stop("a")])
    #expect(try queue.resume("a") == [])
    #expect(states(queue) == ["a:waiting*"])
    #expect(queue.runEnded("a", failed: false, interrupted: true) == [.start("a")])
  }

  @Test func pausingAWaitingJobLetsTheNextOneGoFirst() throws {
    var queue = JobQueue(maxRunning: 1)
    _ = queue.add("a")
    _ = queue.add("b")
    _ = queue.add("c")
    #expect(try queue.pause("b") == [])
    #expect(queue.runEnded("a", failed: false, interrupted: false) == [.start("c")])
  }

  @Test func cancelRemovesAtOnceAndStopsARun() throws {
    var queue = JobQueue(maxRunning: 1)
    _ = queue.add("a")
    _ = queue.add("b")
    #expect(try queue.cancel("b") == [])
    #expect(try queue.cancel("a") == [.stop("a")])
    #expect(states(queue) == ["a:removed*", "b:removed"])
    #expect(queue.runEnded("a", failed: false, interrupted: true) == [])
    #expect(states(queue) == ["a:removed", "b:removed"])
    #expect(try queue.cancel("a") == [])
  }

  @Test func endedJobsRefuseWhatCannotApply() throws {
    var queue = JobQueue(maxRunning: 1)
    _ = queue.add("a")
    _ = queue.runEnded("a", failed: false, interrupted: false)
    #expect(throws: JobQueue.Refusal.conflict(.complete)) { try queue.pause("a") }
    #expect(throws: JobQueue.Refusal.conflict(.complete)) { try queue.resume("a") }
    #expect(throws: JobQueue.Refusal.conflict(.complete)) { try queue.cancel("a") }
    #expect(throws: JobQueue.Refusal.notFound) { try queue.pause("zz") }
  }

  @Test func aJobThatEndedInErrorCanBeQueuedAgain() throws {
    var queue = JobQueue(maxRunning: 1)
    _ = queue.add("a")
    _ = queue.runEnded("a", failed: true, interrupted: false)
    #expect(try queue.resume("a") == [.start("a")])
  }

  @Test func forgetTakesOnlyEndedJobsWhoseRunIsOver() throws {
    var queue = JobQueue(maxRunning: 1)
    _ = queue.add("a")
    #expect(throws: JobQueue.Refusal.conflict(.active)) { try queue.forget("a") }
    _ = try queue.cancel("a")
    #expect(throws: JobQueue.Refusal.conflict(.removed)) { try queue.forget("a") }
    _ = queue.runEnded("a", failed: false, interrupted: true)
    try queue.forget("a")
    #expect(queue.items.isEmpty)
  }

  @Test func movingChangesWhichWaitingJobStartsNext() throws {
    var queue = JobQueue(maxRunning: 1)
    _ = queue.add("a")
    _ = queue.add("b")
    _ = queue.add("c")
    #expect(try queue.move("c", to: 0) == [])
    #expect(states(queue) == ["c:waiting", "a:active*", "b:waiting"])
    #expect(try queue.move("c", to: 99) == [])
    #expect(queue.items.map(\.id) == ["a", "b", "c"])
    #expect(try queue.move("c", to: -5) == [])
    #expect(queue.runEnded("a", failed: false, interrupted: false) == [.start("c")])
  }

  @Test func aRestartedJobRunsAgainBeforeTheJobsBehindIt() throws {
    var queue = JobQueue(maxRunning: 1)
    _ = queue.add("a")
    _ = queue.add("b")
    #expect(try queue.restart("a") == [.stop("a")])
    #expect(try queue.restart("b") == [])
    #expect(queue.runEnded("a", failed: false, interrupted: true) == [.start("a")])
  }

  @Test func aPausedNewJobWaitsForResume() throws {
    var queue = JobQueue(maxRunning: 1)
    #expect(queue.add("a", paused: true) == [])
    #expect(try queue.resume("a") == [.start("a")])
  }

  @Test func shutdownStopsRunsAndLeavesThemActiveForTheNextStart() throws {
    var queue = JobQueue(maxRunning: 1)
    _ = queue.add("a")
    _ = queue.add("b")
    #expect(queue.shutDown() == [.stop("a")])
    #expect(queue.runEnded("a", failed: false, interrupted: true) == [])
    #expect(states(queue) == ["a:active", "b:waiting"])
    #expect(try queue.resume("b") == [])
  }

  @Test func aRestoredQueueRunsItsActiveJobAgainFirst() {
    let (queue, actions) = JobQueue.restored(
      [
        (id: "done", state: .complete), (id: "p", state: .paused), (id: "a", state: .active),
        (id: "w", state: .waiting),
      ], maxRunning: 1)
    #expect(actions == [.start("a")])
    #expect(states(queue) == ["done:complete", "p:paused", "a:active*", "w:waiting"])
  }
}
