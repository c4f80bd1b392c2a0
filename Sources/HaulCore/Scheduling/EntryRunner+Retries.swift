/// The slow path: an entry's attempts over its sources, with back-off, outages and mirrors,
/// in a task.
extension EntryRunner {
  /// Runs `job`'s attempts over its sources, as `AttemptLoop` decides and carries out
  /// (`AttemptLoop.retry`). `holdingSlot`: the first attempt's slot is already taken.
  /// `after`: the first attempt on the first source was made elsewhere (by the engine) and
  /// failed so; its slot is already given back.
  func run(_ job: EntryJob, holdingSlot: Bool, after first: Failure? = nil) async {
    let entry = job.entry
    let sources = entry.sources
    var loop = AttemptLoop(sources: sources.count, policy: retryPolicy)
    loop.begin()
    // The engine's first attempt may have fetched its file again from zero.
    loop.refetched(upTo: job.attempts)
    var holding = holdingSlot
    if entry.operation == .download, job.local == nil {
      do throws(TransferError) {
        job.local = try localFiles(for: entry)
      } catch {
        if holding { releaseSlot(host: job.hostID) }
        end(job, with: .failure(Failure(error: error)))
        return
      }
    }
    let result = await loop.retry(
      after: first,
      attempt: { source, number -> AttemptLoop.Made<Success> in
        let url = sources[source]
        let host = state.hostID(of: url)
        job.attempts = number
        if !holding {
          guard await acquireSlot(host: host) else {
            return .init(
              result: .failure(Failure(error: Scheduler.cancelledError)), attempts: job.attempts)
          }
        }
        holding = false
        job.beginOnce()
        let result = await attempt(job, on: url, host: host)
        return .init(result: result, attempts: job.attempts)
      },
      excused: { _, source in await scheduler.hostUnreachable(Origin(sources[source])) },
      retrying: { number, code, delay in
        events(.retry(job.info, attempt: number, code: code, delay: delay))
      },
      cancelled: { state.isCancelled })
    switch result {
    case .success:
      end(job, with: result)
    case .failure(let failure):
      end(job, with: .failure(Failure(error: await abandoningUploads(job, failure.error))))
    }
  }
}
