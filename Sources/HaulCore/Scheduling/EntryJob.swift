/// One manifest entry on its way through a run, from the moment it holds its first slot.
///
/// The common case runs here, as a `TransportJob` on the transport's engine thread: the
/// first attempt on the first source (opening the partial file, the exchange and its
/// redirects, validation, the digest, the rename) and the entry's end, with no task, actor
/// hop or continuation. Whatever must wait — a retry's back-off, a mirror, an outage, a
/// digest still being computed by a worker thread — goes to `EntryRunner`'s slow path,
/// which carries on from the same state, so both paths give the same results.
///
/// Threading: used by one thread at a time (the feeder, then the engine thread or a task);
/// it is handed between them through the run's lock or the engine's mailbox.
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

  /// The fast path's attempt in flight.
  private var download: DownloadAttempt?
  private var uploadSink: UploadSink?
  private var walk: RedirectWalk?
  private var fresh = false

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
    return startAttempt()
  }

  func exchangeEnded(_ result: Result<TransferResponse, TransferError>) -> JobStep {
    if case .success(let response) = result, var walk {
      do throws(TransferError) {
        if try walk.follow(after: response) {
          self.walk = walk
          return .send(walk.hop, download?.sink ?? uploadSink!)
        }
      } catch {
        return conclude(.failure(error))
      }
    }
    return conclude(result)
  }

  /// Prepares the attempt and asks for its first exchange.
  private func startAttempt() -> JobStep {
    let base = runner.request(entry, entry.url)
    if let local {
      switch DownloadAttempt.prepare(
        entry, base: base, local: local, counter: counter, fresh: fresh,
        hashes: runner.options.digestsWithoutChecksum, serverDigests: runner.options.serverDigests,
        refresh: refresh)
      {
      case .success(let attempt):
        download = attempt
        return send(attempt.request, attempt.sink)
      case .failure(.restart(let reason)):
        return restart(reason)
      case .failure(.failed(let failure)):
        return escalate(failure)
      case .failure(.received), .failure(.unchanged):
        preconditionFailure("prepare never reports a response")
      }
    }
    switch UploadAttempt.prepare(
      entry, base: base, path: runner.uploadPath(entry), length: info.expectedBytes,
      counter: counter)
    {
    case .success((let request, let sink)):
      uploadSink = sink
      return send(request, sink)
    case .failure(let failure):
      return escalate(failure)
    }
  }

  /// Asks for `request`'s first hop, adapted by the run's immediate interceptor (if any).
  private func send(_ request: TransferRequest, _ sink: any ResponseSink) -> JobStep {
    var request = request
    if let interceptor = runner.immediate {
      do throws(TransferError) {
        try interceptor.adaptNow(&request, for: entry)
      } catch {
        return conclude(.failure(error))
      }
    }
    let walk = RedirectWalk(request)
    self.walk = walk
    return .send(walk.hop, sink)
  }

  /// Judges the final response and ends the attempt: done, restarted, or handed to the
  /// slow path.
  private func conclude(_ result: Result<TransferResponse, TransferError>) -> JobStep {
    walk = nil
    guard let attempt = download else {
      let sink = uploadSink
      uploadSink = nil
      switch UploadAttempt.judge(result, sink: sink) {
      case .success(let success): return succeed(success)
      case .failure(let failure): return escalate(failure)
      }
    }
    switch attempt.judge(result) {
    case .failed(let failure):
      attempt.end()
      download = nil
      return escalate(failure)
    case .restart(let reason):
      attempt.end()
      download = nil
      return restart(reason)
    case .unchanged:
      attempt.end()
      download = nil
      return succeed(AttemptSuccess(unchanged: true))
    case .received:
      guard attempt.digestIsReady else {
        // A large body's digest is finished by its worker thread: wait for it in a task.
        download = nil
        runner.spawn(self) { [self] in
          let completed = attempt.complete(digests: await attempt.sink.digest())
          attempt.end()
          await runner.continueAfter(self, completed, releasingSlot: true)
        }
        return .done
      }
      let completed = attempt.complete(digests: attempt.sink.inlineDigest())
      attempt.end()
      download = nil
      switch completed {
      case .success(let success): return succeed(success)
      case .failure(let failure): return escalate(failure)
      }
    }
  }

  /// The partial file was no prefix of the resource: once, the attempt starts over from
  /// zero; a second time, it fails as `protocol`.
  private func restart(_ reason: String) -> JobStep {
    guard !fresh else {
      return escalate(AttemptFailure(error: TransferError(.protocol, reason)))
    }
    fresh = true
    return startAttempt()
  }

  private func succeed(_ success: AttemptSuccess) -> JobStep {
    runner.releaseSlot(host: hostID, status: 200)
    runner.end(self, with: .success(success))
    return .done
  }

  /// Gives the slot back, noting how the host answered, and lets the slow path decide what
  /// the failure means (a retry, the next source, the end).
  private func escalate(_ failure: AttemptFailure) -> JobStep {
    runner.releaseSlot(
      host: hostID, status: failure.error.code.httpStatus, retryAfter: failure.retryAfter,
      answered: failure.answered)
    runner.spawn(self) { [self] in
      await runner.continueAfter(self, .failure(failure), releasingSlot: false)
    }
    return .done
  }
}
