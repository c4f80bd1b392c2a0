/// The end of an entry: its outcome, its event, and its record in the run.
extension EntryRunner {
  /// Records how `job` ended after its last attempt.
  func end(_ job: EntryJob, with result: Result<Success, Failure>) {
    var outcome: EntryOutcome
    let completed: Int64
    switch result {
    case .success(let success):
      outcome = EntryOutcome(job.entry, status: success.unchanged ? .skipped : .ok)
      outcome.sha256 = success.sha256
      outcome.digests = success.digests
      outcome.verified = success.verified
      if let check = job.refresh {
        outcome.refresh = success.unchanged ? .unchanged : .changed
        completed = success.unchanged ? check.size : job.counter.present
      } else {
        completed = job.counter.present
      }
    case .failure(let failure):
      outcome = EntryOutcome(job.entry, status: .failed, error: failure.error)
      completed = job.entry.size ?? 0
      if job.entry.operation == .download { job.local?.discardEmptyPartial() }
    }
    outcome.attempts = job.attempts
    outcome.bytes = job.counter.moved
    outcome.seconds = job.seconds
    if job.entry.operation == .download { directory.entryLocks.release(job.entry.path) }
    // A descriptor of the entry's own (its subfolder's) is closed now, not when the job goes.
    if job.local?.holdsDescriptor == true { job.local = nil }
    let ending = Ending(
      outcome: outcome, completedBytes: completed, activeID: job.begun ? job.id : nil,
      retired: job, sizeInManifest: job.entry.size != nil)
    // The event goes first: recording the last entry lets the run end and its summary go.
    events(.finished(outcome))
    state.end(ending)
  }
}
