/// One manifest entry on its way through a run, from the moment it holds its first slot.
///
/// The common case runs here, as a `TransportJob` on the transport's engine thread: the
/// first attempt on the first source (opening the partial file, the exchange and its
/// redirects, validation, the digest, the rename) and the entry's end, with no task, actor
/// hop or continuation; with `--fsync` the completion and the end run on a `FileFinisher`
/// thread instead, so that the engine thread never waits for the disk. The attempt's steps are `AttemptMachine`'s, which a task executes
/// the same way (`EntryRunner.attempt`). Whatever must wait — a retry's back-off, a mirror,
/// an outage, a digest still being computed by a worker thread — goes to a task, which
/// carries on from the same state, so both paths give the same results.
///
/// Threading: used by one thread at a time (the feeder, then the engine thread, a
/// `FileFinisher` thread or a task); it is handed between them through the run's lock, the
/// engine's mailbox or the finisher's queue. A task may change threads at each `await`, so
/// no one thread owns it for long enough to check.
// unchecked: one owner at a time, handed over through the run's lock, a mailbox or a queue.
final class EntryJob: @unchecked Sendable {
  let entry: ManifestEntry
  let runner: EntryRunner
  /// The entry's id among the transfers in flight: its manifest line.
  var id: Int { entry.line }
  /// The first source's host, whose slot the first attempt takes, by its number in the
  /// run's slots.
  let hostID: Int
  /// What the entry's events say of it; an upload's size is learned as it begins.
  private(set) var info: EntryInfo
  let counter = ProgressCounter()
  /// The entry's local files, for downloads; opened when the entry starts if not before.
  var local: LocalDownload?
  /// For a `--refresh` check of a file in place: what each attempt asks the server.
  var refresh: RefreshCheck?
  /// Attempts made so far, over all sources.
  var attempts = 0
  /// Whether the entry is listed among the transfers in flight and its `started` sent.
  var begun = false
  /// When the first attempt started.
  var began = ContinuousClock.now

  /// The engine's attempt, and its exchange in flight (the redirect hops, and the attempt
  /// whose sink takes the response).
  private var machine = AttemptMachine<any AttemptSteps>()
  private var exchange: (walk: RedirectWalk, attempt: any AttemptSteps)?

  init(_ entry: ManifestEntry, runner: EntryRunner, local: LocalDownload?, expectedBytes: Int64?) {
    self.entry = entry
    self.runner = runner
    self.local = local
    hostID = runner.state.hostID(of: entry.url)
    info = EntryInfo(
      line: entry.line, path: entry.path, operation: entry.operation,
      expectedBytes: expectedBytes)
  }

  /// Lists the entry as in flight and announces it, once, as its first attempt starts.
  func beginOnce() {
    guard !begun else { return }
    begun = true
    began = .now
    if entry.operation == .upload { info.expectedBytes = runner.uploadLength(entry) }
    runner.state.activate(self)
    runner.events(.started(info))
  }

  /// Seconds since the first attempt started.
  var seconds: Double { begun ? (ContinuousClock.now - began).inSeconds : 0 }
}

extension EntryJob: TransportJob {
  func begin() -> JobStep {
    if runner.state.isCancelled {
      runner.releaseSlot(host: hostID)
      runner.end(self, with: .failure(AttemptFailure(error: Scheduler.cancelledError)))
      return .done
    }
    if entry.operation == .download, local == nil {
      do throws(TransferError) {
        local = try runner.localFiles(for: entry)
      } catch {
        runner.releaseSlot(host: hostID)
        runner.end(self, with: .failure(AttemptFailure(error: error)))
        return .done
      }
    }
    beginOnce()
    attempts = 1
    return perform(machine.start(split: runner.splits(self, entry.url)))
  }

  /// The first source's host multiplexes, when the exchange is its first hop (a redirect's
  /// host is not the one whose slots this entry holds).
  func connectionMultiplexes(handshake: Double) {
    guard exchange?.walk.hops == 0 else { return }
    runner.noteMultiplexed(host: hostID, handshake: handshake)
  }

  func exchangeEnded(_ result: Result<TransferResponse, TransferError>) -> JobStep {
    guard var exchange else { return .done }
    self.exchange = nil
    var result = result
    if case .success(let response) = result {
      do throws(TransferError) {
        if try exchange.walk.follow(after: response) {
          self.exchange = exchange
          return .send(exchange.walk.hop, exchange.attempt.responseSink)
        }
      } catch {
        result = .failure(error)
      }
    }
    let attempt = exchange.attempt
    runner.note(result, host: hostID)
    return perform(
      machine.exchangeEnded(attempt.judge(result), digestReady: attempt.digestIsReady))
  }

  /// Executes the machine's actions until one needs the transport (an exchange) or the
  /// attempt leaves the engine thread.
  private func perform(_ first: AttemptMachine<any AttemptSteps>.Action) -> JobStep {
    var action = first
    while true {
      switch action {
      case .split:
        // In parts, in a task that holds the slot and carries on from this machine
        // (`dispatch` sends such entries there at once; this is for an entry whose answer
        // to that changed since).
        carryOnInTask(from: action)
        return .done
      case .completeParts:
        preconditionFailure("attempt machine: parts are only received in a task")
      case .prepare(let fresh, let closing, let refetch):
        closing?.end()
        if let refetch { runner.refetching(self, after: refetch) }
        switch runner.prepare(self, on: entry.url, fresh: fresh, length: info.expectedBytes) {
        case .success(let attempt): action = machine.prepared(attempt, resumed: attempt.resumed)
        case .failure(let setback): action = machine.prepareFailed(setback)
        }
      case .send(let attempt):
        var request = attempt.request
        if let interceptor = runner.immediate {
          do throws(TransferError) {
            try interceptor.adaptNow(&request, for: entry)
          } catch {
            action = machine.exchangeEnded(
              attempt.judge(.failure(error)), digestReady: attempt.digestIsReady)
            continue
          }
        }
        let walk = RedirectWalk(request, state: runner.options.httpState)
        exchange = (walk, attempt)
        return .send(walk.hop, attempt.responseSink)
      case .complete(let attempt) where attempt.completionSyncs && runner.finisher != nil:
        // The file is synced to the disk before it is put in place: on the finisher's
        // thread, so that this loop's other transfers go on meanwhile.
        runner.finisher?.submit { [self] in
          let next = machine.completed(attempt.completeNow())
          guard case .finish(let finish) = next else { return carryOnInTask(from: next) }
          ending(finish)
        }
        return .done
      case .complete(let attempt):
        action = machine.completed(attempt.completeNow())
      case .awaitDigest:
        // A large body's digest is finished by its worker thread: wait for it in a task,
        // which carries the rest of the attempt out (a fetch from zero, if it comes to that).
        carryOnInTask(from: action)
        return .done
      case .finish(let finish):
        ending(finish)
        return .done
      }
    }
  }

  /// Hands the attempt to a task from `next` on: the task carries it out to its end, then
  /// ends the entry or takes its failure to the slow path.
  private func carryOnInTask(from next: AttemptMachine<any AttemptSteps>.Action) {
    runner.spawn(self) { [self] in
      var machine = self.machine
      let result = await runner.carryOut(&machine, from: next, self, on: entry.url, host: hostID)
      switch result {
      case .success: runner.end(self, with: result)
      case .failure(let failure): await runner.run(self, holdingSlot: false, after: failure)
      }
    }
  }

  /// Ends the attempt as `finish` says, and the entry with a success; a failure goes to a
  /// task for the slow path.
  private func ending(_ finish: AttemptMachine<any AttemptSteps>.Finish) {
    guard let failure = self.finish(finish) else { return }
    runner.spawn(self) { [self] in await runner.run(self, holdingSlot: false, after: failure) }
  }

  /// Carries out the attempt's end: closes it and gives the slot back, noting how the host
  /// answered; a success ends the entry, a failure is returned for the slow path to decide
  /// what it means (a retry, the next source, the end).
  private func finish(_ finish: AttemptMachine<any AttemptSteps>.Finish) -> AttemptFailure? {
    finish.closing?.end()
    runner.releaseSlot(host: hostID, finish.end.release)
    switch finish.end.result {
    case .success:
      runner.end(self, with: finish.end.result)
      return nil
    case .failure(let failure):
      return failure
    }
  }
}
