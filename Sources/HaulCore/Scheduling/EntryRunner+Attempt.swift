import Foundation

/// One attempt in a task (the slow path's attempts, and entries the engine does not carry),
/// executing what `AttemptMachine` decides; the engine executes the same machine in
/// `EntryJob`.
extension EntryRunner {
  /// Makes one attempt of `job` on `url`, holding a slot for `host`, and gives the slot back
  /// as the attempt's end says.
  func attempt(_ job: EntryJob, on url: URL, host: Int) async -> Result<Success, Failure> {
    var machine = AttemptMachine<any AttemptSteps>()
    let first = machine.start(split: splits(job, url))
    return await carryOut(&machine, from: first, job, on: url, host: host)
  }

  /// Executes `machine`'s actions from `first` to the attempt's end, then gives the slot
  /// for `host` back as that end says; the engine hands an attempt over here when a step
  /// must wait (`EntryJob`).
  func carryOut(
    _ machine: inout AttemptMachine<any AttemptSteps>,
    from first: AttemptMachine<any AttemptSteps>.Action,
    _ job: EntryJob, on url: URL, host: Int
  ) async -> Result<Success, Failure> {
    var action = first
    // The parts of a round that all arrived, until `completeParts` checked them.
    var received: ReceivedParts?
    while true {
      switch action {
      case .split(let fresh):
        switch await transferInParts(job, on: url, fresh: fresh) {
        case .declined: action = machine.splitDeclined()
        case .ended(let result): action = .finish(machine.splitEnded(result))
        case .restart(let reason): action = machine.splitRestart(reason)
        case .received(let parts):
          received = parts
          action = machine.partsReceived()
        }
      case .completeParts:
        guard let parts = received.take() else {
          preconditionFailure("attempt machine: completeParts with no parts received")
        }
        let result = await parts.complete { await syncing($0) }
        parts.end()
        action = machine.completed(result)
      case .prepare(let fresh, let closing, let refetch):
        closing?.end()
        if let refetch { refetching(job, after: refetch) }
        switch prepare(job, on: url, fresh: fresh, length: nil) {
        case .success(let attempt): action = machine.prepared(attempt, resumed: attempt.resumed)
        case .failure(let setback): action = machine.prepareFailed(setback)
        }
      case .send(let attempt):
        let response: Result<TransferResponse, TransferError>
        do throws(TransferError) {
          response = .success(
            try await send(attempt.request, for: job.entry, sink: attempt.responseSink, job: job))
        } catch {
          response = .failure(error)
        }
        note(response, host: job.hostID)
        action = machine.exchangeEnded(
          attempt.judge(response), digestReady: attempt.digestIsReady)
      case .complete(let attempt):
        action = machine.completed(await complete(attempt))
      case .awaitDigest(let attempt):
        await attempt.awaitDigest()
        action = machine.completed(await complete(attempt))
      case .finish(let finish):
        finish.closing?.end()
        releaseSlot(host: host, finish.end.release)
        return finish.end.result
      }
    }
  }

  /// Completes `attempt`: on the finisher's threads when it syncs to the disk, else at once.
  private func complete(_ attempt: any AttemptSteps) async -> Result<Success, Failure> {
    guard attempt.completionSyncs else { return attempt.completeNow() }
    return await syncing { attempt.completeNow() }
  }

  /// Runs `work`, which syncs files to the disk, on the finisher's threads (with `--fsync`),
  /// so that no thread of Swift's pool waits for an `fsync`; without a finisher, at once.
  func syncing<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
    guard let finisher else { return work() }
    return await finisher.perform(work)
  }

  /// Counts the fetch from the first byte of a resumed file that failed its check with
  /// `code` as one more attempt of `job`, and tells it as a `retry` with no delay.
  func refetching(_ job: EntryJob, after code: TransferError.Code) {
    job.attempts += 1
    events(.retry(job.info, attempt: job.attempts, code: code, delay: 0))
  }

  /// Prepares `job`'s attempt on `url`: a download into its partial file (from the first
  /// byte when `fresh`), or an upload of its file (`length`: its size as looked up when the
  /// entry began, if it was).
  func prepare(_ job: EntryJob, on url: URL, fresh: Bool, length: Int64?)
    -> Result<any AttemptSteps, AttemptSetback>
  {
    let entry = job.entry
    let base = request(entry, url)
    if let local = job.local {
      return DownloadAttempt.prepare(
        entry, base: base, local: local, counter: job.counter, fresh: fresh,
        hashes: options.digestsWithoutChecksum, serverDigests: options.serverDigests,
        refresh: job.refresh, errorBodies: options.errorBodies, refusals: options.refusals
      ).map { $0 }
    }
    let file: UploadFile
    do throws(TransferError) {
      file = try uploadFile(entry)
    } catch {
      return .failure(.failed(AttemptFailure(error: error)))
    }
    return UploadAttempt.prepare(
      entry, base: base, file: file, length: length, counter: job.counter,
      errorBodies: options.errorBodies
    ).map { $0 }
  }

  /// `error`, the failure `job` ended with for good, with what the upload strategies that
  /// carried it did to clean up on its sources (`UploadStrategy.abandon`: an aborted
  /// multipart upload); a cancelled entry keeps what it left for the run that resumes it.
  func abandoningUploads(_ job: EntryJob, _ error: TransferError) async -> TransferError {
    guard job.entry.operation == .upload, error.code != .cancelled else { return error }
    var told = error
    for url in job.entry.sources {
      guard let (strategy, upload) = strategy(job, to: url),
        let note = await strategy.abandon(upload)
      else { continue }
      told.message += "; " + note
    }
    return told
  }

  /// The upload strategy that carries `job`'s upload to `url`, with its context (the file
  /// opened for it); `nil` when none takes it or the file cannot be opened.
  private func strategy(_ job: EntryJob, to url: URL) -> (any UploadStrategy, UploadContext)? {
    guard let file = try? uploadFile(job.entry),
      let strategy = uploadStrategy(job.entry, to: url, source: file.path)
    else { return nil }
    return (strategy, UploadContext(runner: self, job: job, url: url, file: file))
  }

  /// Carries one round of `job`'s transfer from `url` in parts (from the first byte when
  /// `fresh`): a segmented download (see `segmentedRound`), or an upload by the strategy
  /// that takes it.
  private func transferInParts(_ job: EntryJob, on url: URL, fresh: Bool) async -> PartsRound {
    if let local = job.local {
      return await segmentedRound(
        job.entry, from: url, into: local, counter: job.counter, fresh: fresh, job: job)
    }
    guard let (strategy, upload) = strategy(job, to: url) else { return .declined }
    return .ended(await strategy.attempt(upload).map { AttemptSuccess() })
  }
}
