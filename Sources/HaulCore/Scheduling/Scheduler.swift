import Foundation

/// Runs a manifest's entries through a transport: at most `concurrency` at once and
/// `perHost` per host, skipping what is done, resuming partial files, retrying what is
/// transient, trying mirrors, verifying every byte, and reporting as it goes.
///
/// Entries are pulled from the sequence only as room appears (a bounded window of entries
/// is alive at once, whatever the manifest's length). Events are delivered in order through
/// the stream `run` returns; progress is sampled every `progressInterval`, never queued per
/// chunk. `cancel()` stops new work: transfers in flight end with `cancelled` and keep their
/// partial files, and every entry not finished is reported `failed` with `cancelled`.
public actor Scheduler {
  let transport: any Transport
  let options: SchedulerOptions
  let retryPolicy: RetryPolicy
  private var outages = Outages<CheckedContinuation<Bool, Never>>()
  /// Whether `cancel()` was called. What cancelling does, and whether the run is cancelled,
  /// is the run's state machine's (`RunState.isCancelled`, asked by the feeder and every
  /// entry); this keeps a cancel that came before the run began, for `start` to hand on.
  private var cancelRequested = false
  private var runner: EntryRunner?
  /// The ended run's state while anything still holds it, for `holdings()`.
  private weak var endedState: RunState?
  /// The tasks the ended run started (`tasksStarted()`).
  private var endedTasks = 0

  public init(transport: any Transport, options: SchedulerOptions) {
    self.transport = transport
    self.options = options
    self.retryPolicy = RetryPolicy(
      retries: options.retries, base: options.backoffBase, cap: options.backoffCap)
  }

  /// Runs every entry of `entries` and returns the events of the run; the stream ends after
  /// the `summary` event. Call once per scheduler (this or `run(_:onEvent:)`).
  public nonisolated func run<Entries: Sequence<ManifestEntry> & Sendable>(_ entries: Entries)
    -> AsyncStream<TransferEvent>
  {
    let (stream, continuation) = AsyncStream.makeStream(of: TransferEvent.self)
    Task {
      await self.start(entries, emit: SerializedEventHandler { continuation.yield($0) })
      continuation.finish()
    }
    return stream
  }

  /// Runs every entry of `entries`, handing each event to `onEvent` as it happens, and
  /// returns after the `summary` event was handled. Calls come one at a time, from the
  /// scheduler's tasks or the transport's thread: a handler should be quick, and a slow one
  /// holds the run back. Call once per scheduler (this or `run(_:)`).
  public func run<Entries: Sequence<ManifestEntry> & Sendable>(
    _ entries: Entries, onEvent: @escaping TransferEventHandler
  ) async {
    await start(entries, emit: SerializedEventHandler(onEvent))
  }

  /// Stops starting transfers; running ones end with `cancelled` and keep their partial data
  /// for the next run. Idempotent. One event of the run (`EntryRunner.cancel`), whether the
  /// CLI's signal or the daemon's pause or cancel of a job sends it.
  public func cancel() {
    guard !cancelRequested else { return }
    cancelRequested = true
    for waiter in outages.endAll() { waiter.resume(returning: false) }
    runner?.cancel()
  }

  /// What the run holds now (`RunHoldings`), for the tests that check that a run, once
  /// ended, cancelled or not, leaves nothing behind: `none` once nothing holds its state.
  package func holdings() -> RunHoldings { (runner?.state ?? endedState)?.holdings ?? .none }

  /// How many tasks the run started (entries' slow paths, outage probes), for the tests
  /// that check that an entry the engine carries never gets one. Read once the run ended.
  package func tasksStarted() -> Int { runner?.state.work.tasksAdded ?? endedTasks }

  private func start<Entries: Sequence<ManifestEntry> & Sendable>(
    _ entries: Entries, emit events: SerializedEventHandler
  ) async {
    let directory: OutputDirectory
    do throws(TransferError) {
      directory = try OutputDirectory(path: options.outputDirectory)
    } catch {
      var tally = RunTally()
      for entry in entries {
        let outcome = Self.outcome(entry, error: error)
        tally.add(outcome)
        events(.finished(outcome))
      }
      events(
        .summary(
          tally.summary(seconds: 0, transport: transport.name, cancelled: cancelRequested)))
      return
    }
    let runner = EntryRunner(scheduler: self, directory: directory, events: events)
    self.runner = runner
    if cancelRequested { runner.cancel() }
    // Under `-j auto` the controller looks at the run 20 times a second: often enough
    // to climb within a few round trips of a long link. A timer of the run's group, it ends
    // with the run.
    if options.automaticConcurrency {
      runner.state.work.add(.timer) {
        while !Task.isCancelled {
          try? await Task.sleep(for: .milliseconds(50))
          runner.dispatch(runner.state.tune())
        }
      }
    }
    // The run's task group: the feeder is its first child, every entry's task, probe and
    // timer the others; it returns once they all ended.
    let task = Task.detached {
      await runner.state.work.run {
        await self.feed(entries, to: runner)
        await runner.state.waitUntilDrained()
        // The jobs that ended after the feeder's last look: each holds the runner, whose
        // state holds them, so left there they would keep the run (its output directory,
        // entry locks and `.haul/runs` lock) alive after it ended.
        _ = runner.state.takeRetired()
      }
    }
    let sampler = Task { [options] in
      while !Task.isCancelled {
        try? await Task.sleep(for: .seconds(options.progressInterval))
        events(
          .progress(
            runner.state.snapshot(
              expectedTotal: options.expectedTotal, expectedBytes: options.expectedBytes)))
      }
    }
    await task.value
    await runner.finisher?.stop()
    // Every entry ended and let go of its claim: the run's lock files go now, not when the
    // last reference to the directory does (after a signal a transport may hold one until
    // the process exits).
    directory.leave()
    sampler.cancel()
    events(
      .progress(
        runner.state.snapshot(
          expectedTotal: options.expectedTotal, expectedBytes: options.expectedBytes)))
    events(.summary(runner.state.summary(transport: transport.name)))
    runner.state.close()
    endedState = runner.state
    endedTasks = runner.state.work.tasksAdded
    self.runner = nil
  }

  /// Reads the manifest into the run: each entry is checked against the disk, then handed
  /// to the run's slots. Entries that start at once are dispatched in small batches (one
  /// hand-over to the engine for several entries); the rest wait in the slots and start
  /// from wherever a slot frees, mostly the engine thread itself. Reading pauses while the
  /// lookahead is full.
  ///
  /// A batch whose checks run on every core (`FeederPolicy.parallel`, a rerun) is checked
  /// in a task of its own while this one reads the next batch and hands over the one before:
  /// reading and the hand-over run on one thread, and the cores would otherwise wait for them
  /// between batches. Every batch is still handed over whole and in the manifest's order.
  private nonisolated func feed<Entries: Sequence<ManifestEntry>>(
    _ entries: Entries, to runner: EntryRunner
  ) async {
    var handOver = HandOver(runner: runner)
    var source = ListingExpansion(
      entries.makeIterator(), listers: options.folderListers, folders: options.folders,
      runner: runner)
    var policy = FeederPolicy()
    var more = true
    var held: [ManifestEntry] = []
    /// The batch being checked in its own task, handed over once the next one is read.
    var checking: Task<[EntryRunner.Admission], Never>?
    while more {
      // Ended jobs are freed here, on the thread that made them (see `takeRetired`).
      _ = runner.state.takeRetired()
      var batch: [ManifestEntry] = []
      batch.reserveCapacity(policy.batchSize)
      while batch.count < policy.batchSize {
        // Hand over what is ready before waiting for the next listing page.
        if !batch.isEmpty, source.waitsForPage { break }
        let item: ListingItem
        if let onPage = source.nextOnPage() {
          item = onPage
        } else if let next = await source.nextItem() {
          item = next
        } else {
          more = false
          break
        }
        switch consume item {
        case .entry(let entry): batch.append(entry)
        case .ended(let entry, let error):
          await admit(&checking, &handOver, &held, &policy)
          handOver.end(
            .init(outcome: Self.outcome(entry, error: error), sizeInManifest: entry.size != nil))
        case .skipped(var ending):
          await admit(&checking, &handOver, &held, &policy)
          if runner.state.isCancelled {
            ending.outcome.status = .failed
            ending.outcome.error = Self.cancelledError
            ending.completedBytes = 0
          }
          handOver.end(ending)
        }
      }
      guard !batch.isEmpty else { continue }
      policy.batchRead()
      if runner.state.isCancelled {
        await admit(&checking, &handOver, &held, &policy)
        for entry in batch {
          handOver.end(
            .init(
              outcome: Self.outcome(entry, error: Self.cancelledError),
              sizeInManifest: entry.size != nil))
        }
        continue
      }
      if policy.parallel {
        let read = batch
        let next = Task.detached { runner.admissions(for: read, parallel: true) }
        await admit(&checking, &handOver, &held, &policy)
        checking = next
      } else {
        await admit(&checking, &handOver, &held, &policy)
        let admissions = runner.admissions(for: batch, parallel: false)
        await hand(admissions, &handOver, &held, &policy)
      }
    }
    await admit(&checking, &handOver, &held, &policy)
    await admitWhenLetGo(held, to: runner, handOver: &handOver)
    handOver.flush()
  }

  /// Hands over the batch `checking` checks, if any, once its checks are done.
  private nonisolated func admit(
    _ checking: inout Task<[EntryRunner.Admission], Never>?, _ handOver: inout HandOver,
    _ held: inout [ManifestEntry], _ policy: inout FeederPolicy
  ) async {
    guard let task = checking else { return }
    checking = nil
    await hand(await task.value, &handOver, &held, &policy)
  }

  /// Hands a checked batch over: ended entries are recorded, jobs take their slots, entries
  /// another run holds wait in `held`.
  private nonisolated func hand(
    _ admissions: [EntryRunner.Admission], _ handOver: inout HandOver,
    _ held: inout [ManifestEntry], _ policy: inout FeederPolicy
  ) async {
    var skipped = 0
    for admission in admissions {
      switch admission {
      case .ended(let ending):
        skipped += 1
        handOver.end(ending)
      case .job(let job):
        await handOver.submit(job)
      case .held(let entry):
        held.append(entry)
      }
    }
    policy.admitted(skipped: skipped, of: admissions.count)
  }

  /// Checks the entries another haul process held (docs/behaviour.md, "Two runs, one
  /// folder") again and again, as `FeederPolicy` paces it, until each is this
  /// run's to transfer or skip, or the run is cancelled. A held entry holds no slot while it
  /// waits, and the kernel lets go of a killed process's claims, so the wait ends.
  private nonisolated func admitWhenLetGo(
    _ entries: [ManifestEntry], to runner: EntryRunner, handOver: inout HandOver
  ) async {
    var held = entries
    var policy = FeederPolicy()
    while !held.isEmpty {
      handOver.flush()
      if runner.state.isCancelled {
        for entry in held {
          handOver.end(
            .init(
              outcome: Self.outcome(entry, error: Self.cancelledError),
              sizeInManifest: entry.size != nil))
        }
        return
      }
      try? await Task.sleep(for: .seconds(policy.nextHeldPause()))
      let admissions = runner.admissions(for: held, parallel: false)
      held.removeAll(keepingCapacity: true)
      for admission in admissions {
        switch admission {
        case .ended(let ending): handOver.end(ending)
        case .job(let job): await handOver.submit(job)
        case .held(let entry): held.append(entry)
        }
      }
    }
  }

  /// The feeder's batches on their way into the run: jobs that hold a slot, dispatched
  /// several at a time, and entries that ended without a transfer, recorded in batches.
  private struct HandOver {
    let runner: EntryRunner
    var ready: [EntryJob] = []
    var ended: [EntryRunner.Ending] = []

    mutating func flush() {
      runner.dispatch(ready)
      ready.removeAll(keepingCapacity: true)
      guard !ended.isEmpty else { return }
      for ending in ended { runner.events(.finished(ending.outcome)) }
      runner.state.endUnsubmitted(ended)
      ended.removeAll(keepingCapacity: true)
    }

    /// Keeps `ending` (taken, not copied) for the next flush.
    mutating func end(_ ending: consuming EntryRunner.Ending) {
      ended.append(ending)
      if ended.count >= 64 { flush() }
    }

    mutating func submit(_ job: EntryJob) async {
      if !runner.state.hasRoom {
        flush()
        await runner.state.waitForRoom()
      }
      switch runner.state.submit(job) {
      case .started:
        ready.append(job)
        if ready.count >= 8 { flush() }
      case .waiting:
        flush()
      case .cancelled:
        runner.end(job, with: .failure(AttemptFailure(error: Scheduler.cancelledError)))
      }
    }
  }

  static let cancelledError = TransferError(.cancelled, "the run was interrupted")

  static func outcome(_ entry: ManifestEntry, error: TransferError) -> EntryOutcome {
    EntryOutcome(
      line: entry.line, text: entry.text, url: entry.url.absoluteString, path: entry.path,
      operation: entry.operation, status: .failed, bytes: 0, attempts: 0, seconds: 0,
      sha256: nil, error: error)
  }

  // MARK: Connectivity

  /// Called when an attempt to `origin` failed with a connection error. When the host had
  /// answered earlier in this run and does not accept connections now, it is down: nothing
  /// new starts there, one probe retries with backoff, and this returns `true` once the host
  /// is back (the attempt then does not count against the entry's retries). Returns `false`
  /// when the failure was the entry's alone (the host accepts connections, or never did).
  func hostUnreachable(_ origin: Origin) async -> Bool {
    let host = origin.description
    guard let runner, runner.state.wasContacted(host), !runner.state.isCancelled else {
      return false
    }
    return await withCheckedContinuation { continuation in
      guard outages.wait(continuation, for: host) else { return }
      runner.state.markDown(host: host)
      runner.state.work.add(.task) { await self.probe(origin, runner: runner) }
    }
  }

  private func probe(_ origin: Origin, runner: EntryRunner) async {
    var probe = OutageProbe(began: runner.state.now, limit: options.outageLimit)
    var excused: Bool?
    while excused == nil {
      let cancelled = runner.state.isCancelled
      let reachable =
        cancelled
        ? false
        : await Task.detached {
          ConnectivityProbe.canConnect(host: origin.host, port: origin.port, timeout: 2)
        }.value
      switch probe.next(reachable: reachable, now: runner.state.now, cancelled: cancelled) {
      case .wait(let delay): try? await Task.sleep(for: .seconds(delay))
      case .ended(let forgiven): excused = forgiven
      }
    }
    let waiters = outages.end(origin.description)
    runner.dispatch(runner.state.markUp(host: origin.description))
    for waiter in waiters { waiter.resume(returning: excused ?? false) }
  }
}
