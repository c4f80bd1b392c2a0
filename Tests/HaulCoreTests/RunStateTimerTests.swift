import Testing

@testable import HaulCore

/// The timers `RunState` arms when its machine asks (a host held by `Retry-After`, a limit
/// that grows) are children of the run's task group: each goes when it fires, and
/// cancelling or ending the run cancels those left, so none outlives the run or holds it.
@Suite("RunState: the run's timers")
struct RunStateTimerTests {
  @Test(.timeLimit(.minutes(1)))
  func a_timer_waiting_for_a_held_host_is_cancelled_with_the_run() async throws {
    let state = RunState(concurrency: 1, perHost: 1, retryAfterCap: 600)
    try await withRun(state) {
      let waiter = try await heldWaiter(state, retryAfter: 600)
      #expect(state.armedTimer != nil)
      #expect(state.holdings.timers == 1)

      _ = state.cancel()

      #expect(state.armedTimer == nil)
      #expect(await waiter.value == false)
      // The timer's child, asleep for 600 s, ends with the cancelled group.
      while state.holdings.timers > 0 { try await Task.sleep(for: .milliseconds(5)) }
    }
  }

  @Test(.timeLimit(.minutes(1)))
  func ending_the_run_cancels_its_timers() async throws {
    let state = RunState(concurrency: 1, perHost: 1, retryAfterCap: 600)
    var waiter: Task<Bool, Never>?
    // The run's group returns only once its children ended: the timer, asleep for 600 s,
    // is cancelled when the run's main work returns.
    try await withRun(state) {
      waiter = try await heldWaiter(state, retryAfter: 600)
      #expect(state.armedTimer != nil)
      state.close()
      #expect(state.armedTimer == nil)
    }
    #expect(state.holdings == RunHoldings.none)
    _ = state.cancel()
    #expect(await waiter?.value == false)
  }

  @Test(.timeLimit(.minutes(1)))
  func a_timer_that_fires_admits_the_waiter_and_goes() async throws {
    let state = RunState(concurrency: 1, perHost: 1, retryAfterCap: 600)
    try await withRun(state) {
      let waiter = try await heldWaiter(state, retryAfter: 0.05)
      #expect(await waiter.value == true)
      #expect(state.armedTimer == nil)
      while state.holdings.timers > 0 { try await Task.sleep(for: .milliseconds(5)) }
    }
  }

  /// Runs `state`'s task group around `body`, its main work returning once `body` did.
  private func withRun(_ state: RunState, _ body: () async throws -> Void) async throws {
    let (end, ender) = AsyncStream.makeStream(of: Void.self)
    let run = Task { await state.work.run { for await _ in end {} } }
    try await body()
    ender.finish()
    await run.value
  }

  /// Takes host 0's one slot, gives it back with a 429 that holds the host for
  /// `retryAfter` seconds, and starts a wait for the slot, which arms a timer.
  private func heldWaiter(_ state: RunState, retryAfter: Double) async throws -> Task<Bool, Never> {
    #expect(await state.acquireSlot(host: 0))
    _ = state.release(host: 0, status: 429, retryAfter: retryAfter, answered: true)
    let waiter = Task { await state.acquireSlot(host: 0) }
    // The wait is under way once its timer is armed (or, for a short hold, has fired).
    while state.armedTimer == nil, retryAfter >= 1 {
      try await Task.sleep(for: .milliseconds(5))
    }
    return waiter
  }
}
