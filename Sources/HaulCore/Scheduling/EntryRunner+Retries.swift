/// The slow path: an entry's attempts over its sources, with back-off, outages and mirrors,
/// in a task.
extension EntryRunner {
  /// Runs `job`'s attempts over its sources, as `AttemptLoop` decides. `holdingSlot`: the
  /// first attempt's slot is already taken. `after`: the first attempt on the first source
  /// was made elsewhere (by the engine) and failed so; its slot is already given back.
  func run(_ job: EntryJob, holdingSlot: Bool, after first: Failure? = nil) async {
    let entry = job.entry
    let sources = entry.sources
    var loop = AttemptLoop(sources: sources.count, policy: retryPolicy)
    loop.begin()
    // The engine's first attempt may have fetched its file again from zero.
    loop.refetched(upTo: job.attempts)
    var pending = first
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
    while true {
      let url = sources[loop.source]
      let host = state.hostID(of: url)
      let attempt: Result<Success, Failure>
      if let failure = pending {
        pending = nil
        attempt = .failure(failure)
      } else {
        job.attempts = loop.attempts
        if !holding {
          guard !Task.isCancelled, await acquireSlot(host: host) else {
            end(job, with: .failure(Failure(error: Scheduler.cancelledError)))
            return
          }
        }
        holding = false
        job.beginOnce()
        attempt = await self.attempt(job, on: url, host: host)
        loop.refetched(upTo: job.attempts)
      }
      let failure: Failure
      switch attempt {
      case .success(let success):
        end(job, with: .success(success))
        return
      case .failure(let value):
        failure = value
      }
      let error = Task.isCancelled ? Scheduler.cancelledError : failure.error
      var excused = false
      if error.code == .connection { excused = await scheduler.hostUnreachable(Origin(url)) }
      let next = loop.failed(
        error.code, transient: failure.transient, retryAfter: failure.retryAfter,
        excused: excused,
        jitter: Double.random(in: 0..<1))
      guard case .attempt(_, let number, let delay) = next else {
        end(job, with: .failure(Failure(error: await abandoningUploads(job, error))))
        return
      }
      events(.retry(job.info, attempt: number, code: error.code, delay: delay))
      if delay > 0 {
        do {
          try await Task.sleep(for: .seconds(delay))
        } catch {
          end(job, with: .failure(Failure(error: Scheduler.cancelledError)))
          return
        }
      }
    }
  }
}
