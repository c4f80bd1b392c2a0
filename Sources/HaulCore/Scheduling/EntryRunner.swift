import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Carries one entry from start to end: the skip check, then attempts over its sources
/// with retries as `RetryPolicy` decides, each attempt holding a slot from the scheduler.
struct EntryRunner: Sendable {
  let scheduler: Scheduler
  let directory: OutputDirectory
  let events: SerializedEventHandler

  var options: SchedulerOptions { scheduler.options }

  /// What one failed attempt left behind.
  struct Failure: Error {
    var error: TransferError
    var retryAfter: Double?
    /// Whether the server sent a response head before the failure (it was reachable).
    var answered = false
  }

  /// What a successful attempt produced.
  struct Success {
    var sha256: String?
  }

  /// How an entry ended, as the scheduler records it in one step.
  struct Ending: Sendable {
    var outcome: EntryOutcome
    /// The entry's bytes toward `ProgressSnapshot.completedBytes`.
    var completedBytes: Int64 = 0
    /// The entry's id among the active transfers, when it became one.
    var activeID: Int?
  }

  func run(_ entry: ManifestEntry) async -> Ending {
    let clock = ContinuousClock.now
    var outcome = Scheduler.outcome(entry, error: Scheduler.cancelledError)
    func seconds() -> Double { (ContinuousClock.now - clock).inSeconds }
    let local: LocalDownload?
    if entry.operation == .download {
      do throws(TransferError) {
        let download = try LocalDownload(
          directory: directory, path: entry.path, durable: options.fsync)
        if let (digest, size) = alreadyComplete(entry, download) {
          outcome.status = .skipped
          outcome.error = nil
          outcome.sha256 = digest.isEmpty ? nil : digest
          outcome.seconds = seconds()
          return Ending(outcome: outcome, completedBytes: size)
        }
        local = download
      } catch {
        outcome.error = error
        outcome.seconds = seconds()
        return Ending(outcome: outcome)
      }
    } else {
      local = nil
    }

    let info = EntryInfo(
      line: entry.line, path: entry.path, operation: entry.operation,
      expectedBytes: entry.size ?? uploadLength(entry))
    let counter = ProgressCounter()
    let id = entry.line
    var begun = false

    var attempts = 0
    var lastError = Scheduler.cancelledError
    var result: Success?
    sources: for url in entry.sources {
      var attemptOfSource = 0
      while true {
        attemptOfSource += 1
        attempts += 1
        let host = Origin(url).description
        let activating = begun ? nil : Scheduler.ActiveEntry(id: id, info: info, counter: counter)
        guard !Task.isCancelled, await scheduler.acquireSlot(host: host, activating: activating)
        else {
          lastError = Scheduler.cancelledError
          break sources
        }
        if !begun {
          begun = true
          events(.started(info))
        }
        let attempt: Result<Success, Failure>
        if let local {
          attempt = await download(entry, from: url, into: local, counter: counter)
        } else {
          attempt = await upload(entry, to: url, counter: counter)
        }
        switch attempt {
        case .success:
          await scheduler.releaseSlot(host: host, status: 200)
        case .failure(let failure):
          await scheduler.releaseSlot(
            host: host, status: failure.error.code.httpStatus, retryAfter: failure.retryAfter,
            answered: failure.answered)
        }
        switch attempt {
        case .success(let success):
          result = success
          break sources
        case .failure(let failure):
          lastError = Task.isCancelled ? Scheduler.cancelledError : failure.error
          if lastError.code == .connection, await scheduler.hostUnreachable(Origin(url)) {
            attemptOfSource -= 1
            events(.retry(info, attempt: attempts + 1, code: lastError.code, delay: 0))
            continue
          }
          let verdict = scheduler.retryPolicy.verdict(
            for: lastError.code, attemptOfSource: attemptOfSource,
            retryAfter: failure.retryAfter, jitter: Double.random(in: 0..<1))
          switch verdict {
          case .giveUp:
            break sources
          case .nextSource:
            if url != entry.sources.last {
              events(.retry(info, attempt: attempts + 1, code: lastError.code, delay: 0))
            }
            continue sources
          case .retry(let delay):
            events(.retry(info, attempt: attempts + 1, code: lastError.code, delay: delay))
            do {
              try await Task.sleep(for: .seconds(delay))
            } catch {
              lastError = Scheduler.cancelledError
              break sources
            }
          }
        }
      }
    }
    outcome.attempts = attempts
    outcome.bytes = counter.moved
    outcome.seconds = seconds()
    if let result {
      outcome.status = .ok
      outcome.error = nil
      outcome.sha256 = result.sha256
    } else {
      outcome.error = lastError
    }
    return Ending(
      outcome: outcome, completedBytes: result != nil ? counter.present : (entry.size ?? 0),
      activeID: begun ? id : nil)
  }

  /// The destination's digest ("" when none was computed) and length when the entry is
  /// already complete and can be skipped; `nil` otherwise.
  private func alreadyComplete(_ entry: ManifestEntry, _ local: LocalDownload) -> (String, Int64)? {
    guard let destination = local.destination(), destination.isRegularFile else { return nil }
    if let size = entry.size, destination.size != size { return nil }
    if let expected = entry.sha256 {
      guard let (digest, _) = local.digestOfDestination(), digest == expected else { return nil }
      return (digest, destination.size)
    }
    if entry.size == nil && local.partial() != nil { return nil }
    return ("", destination.size)
  }

  /// The size of an upload's file (symlinks followed, as the manifest allows).
  private func uploadLength(_ entry: ManifestEntry) -> Int64? {
    var info = stat()
    guard entry.operation == .upload, stat(uploadPath(entry), &info) == 0 else { return nil }
    return Int64(info.st_size)
  }

  private func uploadPath(_ entry: ManifestEntry) -> String {
    options.outputDirectory + "/" + entry.path
  }

  func request(_ entry: ManifestEntry, _ url: URL) -> TransferRequest {
    TransferRequest(
      url: url, method: entry.method, headers: options.headers + entry.headers,
      stallTimeout: options.stallTimeout, connectTimeout: min(options.stallTimeout, 30))
  }

  /// Sends `request` (adapted by the interceptor, redirects followed); a 401 is sent once
  /// more when the interceptor refreshed its credential, without using up a retry.
  func send(_ request: TransferRequest, for entry: ManifestEntry, sink: any ResponseSink)
    async throws(TransferError) -> TransferResponse
  {
    guard let interceptor = options.interceptor else {
      return try await Exchange.perform(request, on: scheduler.transport, sink: sink)
    }
    var adapted = request
    try await interceptor.adapt(&adapted, for: entry)
    let response = try await Exchange.perform(adapted, on: scheduler.transport, sink: sink)
    guard response.head.status == 401, try await interceptor.retry(after: adapted, for: entry)
    else { return response }
    adapted = request
    try await interceptor.adapt(&adapted, for: entry)
    return try await Exchange.perform(adapted, on: scheduler.transport, sink: sink)
  }

  static func httpFailure(_ head: ResponseHead) -> Failure {
    Failure(
      error: TransferError(.http(head.status), "the server answered \(head.status)"),
      retryAfter: RetryPolicy.retryAfter(head.value(for: "Retry-After"), now: Date()))
  }

  // MARK: Download

  private func download(
    _ entry: ManifestEntry, from url: URL, into local: LocalDownload, counter: ProgressCounter
  ) async -> Result<Success, Failure> {
    if let size = entry.size {
      do throws(TransferError) {
        try local.ensureRoom(for: size) { local.partial()?.size ?? 0 }
      } catch {
        return .failure(Failure(error: error))
      }
    }
    if maySegment(entry),
      let result = await downloadSegmented(entry, from: url, into: local, counter: counter)
    {
      return result
    }
    var fresh = false
    while true {
      let result = await downloadOnce(
        entry, from: url, into: local, counter: counter, fresh: fresh)
      if case .failure(let failure) = result, failure.error.code == Self.restartCode, !fresh {
        fresh = true
        continue
      }
      if case .failure(let failure) = result, failure.error.code == Self.restartCode {
        return .failure(Failure(error: TransferError(.protocol, failure.error.message)))
      }
      return result
    }
  }

  /// Internal marker: the partial file is not a prefix of the resource; start over.
  private static let restartCode = TransferError.Code(rawValue: "restart")

  private func downloadOnce(
    _ entry: ManifestEntry, from url: URL, into local: LocalDownload, counter: ProgressCounter,
    fresh: Bool
  ) async -> Result<Success, Failure> {
    let hasher = entry.sha256 != nil || options.digestsWithoutChecksum ? SHA256() : nil
    var state = ResumeState(
      url: Exchange.redacted(entry.url), sha256: entry.sha256, size: entry.size,
      validator: nil, total: nil)
    var resumeFrom: Int64 = 0
    let fd: Int32
    do throws(TransferError) {
      let (opened, existing) = try local.openOrCreatePartial()
      fd = opened
      if existing > 0, !fresh, let saved = local.readState(), saved.belongs(to: entry),
        saved.segments == nil, let validator = saved.validator,
        existing <= (saved.total ?? Int64.max), existing <= (entry.size ?? Int64.max)
      {
        resumeFrom = existing
        state.validator = validator
        state.total = saved.total
      } else if existing > 0, ftruncate(fd, 0) != 0 {
        let code = errno
        close(fd)
        throw FileErrors.error(code, "cannot truncate the partial file of \(entry.path)")
      }
      if resumeFrom > 0, let hasher {
        let hashed = try LocalDownload.hash(fd: fd, upTo: resumeFrom, into: hasher)
        if hashed != resumeFrom {
          close(fd)
          return .failure(Failure(error: TransferError(Self.restartCode, "partial file shrank")))
        }
      }
    } catch {
      return .failure(Failure(error: error))
    }
    defer { close(fd) }

    var request = request(entry, url)
    if resumeFrom > 0 {
      request.range = ByteRange(start: resumeFrom)
      request.ifRange = state.validator
    }
    let sink = DownloadSink(
      fd: fd, local: local, hasher: hasher, requested: request.range, expectedSize: entry.size,
      state: state, progress: counter)
    let response: TransferResponse
    do throws(TransferError) {
      response = try await send(request, for: entry, sink: sink)
      try sink.flush()
    } catch {
      if error.code == .sizeMismatch {
        local.discardPartial()
      } else {
        // Keep what arrived for the next attempt; the exchange's own error is the one told.
        try? sink.flush()
      }
      return .failure(Failure(error: error, answered: sink.plan != nil))
    }
    let length: Int64
    switch sink.plan {
    case .none, .discard:
      return .failure(Self.httpFailure(response.head))
    case .restart:
      return .failure(
        Failure(
          error: TransferError(Self.restartCode, "the partial file is not a prefix of the resource")
        ))
    case .fail(let error):
      return .failure(Failure(error: error))
    case .complete(let total):
      length = total
    case .write(_, let total, _):
      if let total, sink.offset != total {
        return .failure(
          Failure(
            error: TransferError(
              .protocol, "the body ended after \(sink.offset) of \(total) bytes")))
      }
      length = sink.offset
    }
    if let size = entry.size, length != size {
      local.discardPartial()
      return .failure(
        Failure(error: TransferError(.sizeMismatch, "received \(length) bytes, expected \(size)")))
    }
    var digest: String?
    if sink.hashes {
      guard let computed = await sink.digest() else {
        return .failure(
          Failure(error: TransferError(.io, "cannot read \(entry.path) back to hash it")))
      }
      digest = computed
    }
    if let expected = entry.sha256, digest != expected {
      local.discardPartial()
      return .failure(
        Failure(
          error: TransferError(
            .checksumMismatch, "SHA-256 \(digest ?? "not computed"), expected \(expected)")))
    }
    do throws(TransferError) {
      try local.finish(partial: fd)
    } catch {
      return .failure(Failure(error: error))
    }
    return .success(Success(sha256: digest))
  }

  // MARK: Upload

  private func upload(_ entry: ManifestEntry, to url: URL, counter: ProgressCounter) async
    -> Result<Success, Failure>
  {
    let path = uploadPath(entry)
    var info = stat()
    guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
      return .failure(Failure(error: FileErrors.error(errno, "cannot read \(entry.path)")))
    }
    var request = request(entry, url)
    request.body = RequestBody(path: path, length: Int64(info.st_size))
    let sink = UploadSink(progress: counter)
    let response: TransferResponse
    do throws(TransferError) {
      response = try await send(request, for: entry, sink: sink)
    } catch {
      return .failure(Failure(error: error))
    }
    guard (200..<300).contains(response.head.status) else {
      return .failure(Self.httpFailure(response.head))
    }
    return .success(Success(sha256: nil))
  }
}

/// Receives the answer to an upload: only its status matters; its body is discarded.
final class UploadSink: ResponseSink, @unchecked Sendable {
  let progress: ProgressCounter
  private var reported: Int64 = 0

  init(progress: ProgressCounter) { self.progress = progress }

  func receive(head: ResponseHead) throws(TransferError) -> Bool { false }
  func receive(body: UnsafeRawBufferPointer) throws(TransferError) {}

  func sent(totalBytes: Int64) {
    progress.store(totalBytes)
    if totalBytes > reported {
      progress.add(moved: totalBytes - reported)
      reported = totalBytes
    }
  }
}
