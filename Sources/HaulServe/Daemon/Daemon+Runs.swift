import HaulCore

extension Daemon {
  /// Carries out the queue's actions: starts runs, stops them.
  func perform(_ actions: [JobQueue.Action], in core: inout Core) {
    for action in actions {
      switch action {
      case .start(let id): startRun(id, in: &core)
      case .stop(let id): core.runs[id]?.stop()
      }
    }
  }

  /// Starts the run of job `id`, which the queue has just made `active`.
  private func startRun(_ id: String, in core: inout Core) {
    guard var record = core.jobs[id] else { return }
    record.state = .active
    if record.started == nil { record.started = Daemon.now }
    record.ended = nil
    core.jobs[id] = record
    core.live[id] = LiveProgress(bytesBefore: record.bytes)
    let wholeJob = (try? journal.hasEntries(job: id)) == false
    pending.withLock { $0.counts[id] = RunCounts(wholeJob: wholeJob) }
    enqueueEvent("job-started", job: id, data: jobObject(record, core: core))
    Self.log("job \(id) started: \(record.total) entries into \(record.output)")
    flush(&core, jobs: [id])

    let control = JobControl()
    core.runs[id] = control
    let spec: JobSpec
    do throws(ServiceError) {
      // The output must still lie inside a root: a folder may have become a symlink.
      spec = JobSpec(
        id: id, manifestPath: record.manifest,
        output: try configuration.roots.resolve(record.output),
        options: JobOptions.fromJSONText(record.options),
        statistics: ManifestStatistics(
          entries: record.total, knownBytes: record.expectedBytes ?? 0,
          entriesWithoutSize: record.expectedBytes == nil ? 1 : 0))
    } catch {
      Task.detached { self.runEnded(id, refused: error) }
      return
    }
    let engine = self.engine
    Task.detached {
      let summary = await engine.run(spec, control: control) { [weak self] event in
        self?.handle(event, of: id)
      }
      self.runEnded(id, summary: summary)
    }
  }

  /// One event of a job's run, from the engine's threads (often a curl loop's): it takes
  /// only the `pending` lock, and its JSON is written field by field.
  private func handle(_ event: TransferEvent, of job: String) {
    switch event {
    case .started(let entry):
      enqueueEvent(
        "entry-started", job: job,
        json: EntryEventJSON.started(job: job, line: entry.line, path: entry.path))
    case .finished(let outcome):
      // A transfer stopped with its run has not ended: the next run carries it on.
      if outcome.status == .failed, outcome.error?.code == .cancelled { return }
      let record = EntryRecord(
        job: job, line: outcome.line, path: outcome.path, url: outcome.url,
        status: EntryRecord.Status(rawValue: outcome.status.rawValue)!,
        code: outcome.error?.code.rawValue,
        bytes: outcome.bytes, report: ReportJSON.transfer(outcome))
      let type: String
      let json: String
      switch outcome.status {
      case .ok, .skipped:
        type = "entry-done"
        json = EntryEventJSON.done(
          job: job, line: outcome.line, path: outcome.path, status: outcome.status.rawValue,
          bytes: outcome.bytes)
      case .failed:
        type = "entry-failed"
        json = EntryEventJSON.failed(
          job: job, line: outcome.line, path: outcome.path,
          code: outcome.error?.code.rawValue ?? "io", message: outcome.error?.message ?? "")
      }
      let time = Daemon.now
      pending.withLock { pending in
        pending.outcomes.append(record)
        pending.events.append(
          EventRecord(id: pending.nextEventID, type: type, job: job, data: json, time: time))
        pending.nextEventID += 1
        // One lookup of the job's counts, not one per field.
        guard let index = pending.counts.index(forKey: job) else { return }
        switch outcome.status {
        case .ok: pending.counts.values[index].succeeded += 1
        case .skipped: pending.counts.values[index].skipped += 1
        case .failed: pending.counts.values[index].failed += 1
        }
        pending.counts.values[index].bytes += outcome.bytes
      }
    case .progress(let snapshot):
      core.withLock { core in core.live[job]?.record(snapshot, at: Daemon.now) }
    case .retry, .summary:
      break
    }
  }

  /// A run ended: the job's counts are read back from the journal, and the queue decides
  /// what the job becomes and which run starts next.
  func runEnded(_ id: String, summary: RunSummary) {
    let interrupted = summary.cancelled
    core.withLock { core in
      flush(&core)
      core.runs[id] = nil
      core.live[id] = nil
      let counts = pending.withLock { $0.counts.removeValue(forKey: id) }
      if let counts, counts.wholeJob, var record = core.jobs[id] {
        record.succeeded = counts.succeeded
        record.skipped = counts.skipped
        record.failed = counts.failed
        record.bytes = counts.bytes
        core.jobs[id] = record
      } else {
        updateCounts(id, in: &core)
      }
      let failed = summary.failed > 0 || (core.jobs[id]?.failed ?? 0) > 0
      let actions = core.queue.runEnded(id, failed: failed, interrupted: interrupted)
      settle(id, in: &core)
      perform(actions, in: &core)
    }
  }

  /// A run that could not start (its output left the roots): the job ends in `error`.
  func runEnded(_ id: String, refused error: ServiceError) {
    Self.log("job \(id): \(error.message)")
    core.withLock { core in
      core.runs[id] = nil
      core.live[id] = nil
      let actions = core.queue.runEnded(id, failed: true, interrupted: false)
      settle(id, in: &core)
      perform(actions, in: &core)
    }
  }

  /// Takes the queue's state of job `id` into its record, with the event that says so, and
  /// commits it.
  func settle(_ id: String, in core: inout Core) {
    guard let item = core.queue.item(id), var record = core.jobs[id] else { return }
    let wasEnded = record.ended != nil && record.state.isEnded
    record.state = item.state
    // A job ends once its state says so and its run, if any, is over: then it is announced.
    let ends = item.state.isEnded && !item.running && !wasEnded
    if ends { record.ended = Daemon.now }
    if !item.state.isEnded { record.ended = nil }
    core.jobs[id] = record
    if ends {
      enqueueEvent("job-ended", job: id, data: jobObject(record, core: core))
      Self.log(
        "job \(id) \(record.state.rawValue): \(record.succeeded) ok, \(record.skipped) skipped, "
          + "\(record.failed) failed")
    }
    flush(&core, jobs: [id])
  }

  /// The job's counts from its journaled outcomes.
  private func updateCounts(_ id: String, in core: inout Core) {
    guard var record = core.jobs[id] else { return }
    do throws(JournalError) {
      let counts = try journal.entryCounts(job: id)
      record.succeeded = counts.ok
      record.skipped = counts.skipped
      record.failed = counts.failed
      record.bytes = counts.bytes
      core.jobs[id] = record
    } catch {
      Self.log("cannot count job \(id)'s outcomes: \(error)")
    }
  }
}
