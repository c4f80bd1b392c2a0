/// Cancelling the run: one event of its state machine, and what the runner carries out.
extension EntryRunner {
  /// Cancels the run: the machine's event (`RunState.cancel`: waiters and the feeder
  /// released, every task and timer of the run cancelled by the group's structure), then
  /// the engine's transfers end as `cancelled`, and the entries that never started are
  /// recorded so. Call once (the scheduler's `cancel()`).
  func cancel() {
    let unstarted = state.cancel()
    engine?.cancelJobs()
    for job in unstarted {
      end(job, with: .failure(AttemptFailure(error: Scheduler.cancelledError)))
    }
  }
}
