import Foundation

/// Where an entry that holds its first slot runs: on the engine, or in a task.
extension EntryRunner {
  /// Starts jobs that hold their first slot: on the engine when it may carry them, each
  /// in a task otherwise.
  func dispatch(_ jobs: [EntryJob]) {
    guard !jobs.isEmpty else { return }
    var carried: [any TransportJob] = []
    for job in jobs {
      if engine != nil, !splits(job, job.entry.url) {
        carried.append(job)
      } else {
        spawn(job) { [self] in await run(job, holdingSlot: true) }
      }
    }
    if !carried.isEmpty { engine?.start(carried) }
  }

  /// Whether `job`'s attempt on `url` goes in parts, in a task: a segmented download (a
  /// `--refresh` check is one conditional request, never split) or a multipart upload.
  func splits(_ job: EntryJob, _ url: URL) -> Bool {
    job.entry.operation == .download
      ? job.refresh == nil && maySegment(job.entry, on: url) : goesInParts(job.entry, to: url)
  }

  /// Runs `body` for `job` as a child of the run's task group (`RunWork`): counted as the
  /// run's from now until it returns, and cancelled with the run. The entry is alive, so
  /// the run is not over and the group takes it.
  func spawn(_ job: EntryJob, _ body: @escaping @Sendable () async -> Void) {
    let added = state.work.add(.task, body)
    assert(added, "entry \(job.id) started a task after its run ended")
  }
}
