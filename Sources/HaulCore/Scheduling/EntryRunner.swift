import Dispatch
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Carries a run's entries from start to end: the skip check as the manifest is read, then
/// attempts over each entry's sources with retries as `RetryPolicy` decides, each attempt
/// holding a slot of the run (`RunState`).
///
/// Two paths, one set of rules. `dispatch` hands an entry that holds its first slot to the
/// transport's engine when there is one (`EntryJob`, no task per entry) and otherwise to a
/// task; everything that must wait (back-off, mirrors, outages, `--auth-command`, segments)
/// runs in a task (`run`), which takes over from the engine after a failed first attempt.
/// Both make their attempts with `DownloadAttempt` and `UploadAttempt`.
final class EntryRunner: Sendable {
  let scheduler: Scheduler
  let transport: any Transport
  /// The transport's engine, when it has one and the run may use it.
  let engine: (any EngineTransport)?
  let directory: OutputDirectory
  let events: SerializedEventHandler
  let state: RunState
  let options: SchedulerOptions
  let retryPolicy: RetryPolicy
  /// The run's interceptor when it adapts requests at once (the engine applies it).
  let immediate: (any ImmediateRequestInterceptor)?
  /// `--header` fields with `Want-Repr-Digest` after them (unless they set it), built once:
  /// the headers of a download's requests when its entry adds none.
  let downloadHeaders: [HTTPField]

  typealias Failure = AttemptFailure
  typealias Success = AttemptSuccess

  /// How an entry ended, as the run records it in one step.
  struct Ending: Sendable {
    var outcome: EntryOutcome
    /// The entry's bytes toward `ProgressSnapshot.completedBytes`.
    var completedBytes: Int64 = 0
    /// The entry's id among the active transfers, when it became one.
    var activeID: Int?
    /// The ended entry's job, kept by the run until the feeder drops it (see
    /// `RunState.takeRetired`).
    var retired: EntryJob?
    /// Whether the manifest gives the entry's size (else `completedBytes` is a size learned).
    var sizeInManifest: Bool
  }

  init(scheduler: Scheduler, directory: OutputDirectory, events: SerializedEventHandler) {
    self.scheduler = scheduler
    transport = scheduler.transport
    options = scheduler.options
    retryPolicy = scheduler.retryPolicy
    downloadHeaders =
      options.headers.contains { $0.hasName(ServerDigests.wantReprDigest.name) }
      ? options.headers : options.headers + [ServerDigests.wantReprDigest]
    self.directory = directory
    self.events = events
    state = RunState(
      concurrency: options.concurrency, perHost: options.perHost,
      retryAfterCap: scheduler.retryPolicy.retryAfterCap)
    // An interceptor that must wait (`--auth-command` runs a command) sends every attempt
    // through a task; one that adapts at once (`--s3` signing) keeps the engine.
    immediate = options.interceptor as? any ImmediateRequestInterceptor
    engine =
      options.interceptor == nil || immediate != nil
      ? scheduler.transport as? any EngineTransport : nil
    state.setDispatcher { [unowned self] jobs in dispatch(jobs) }
  }

  // MARK: Feeding

  /// What the feeder does with one entry.
  enum Admission {
    /// The entry needs a transfer.
    case job(EntryJob)
    /// The entry ended without one (already complete, or its local files are refused).
    case ended(Ending)
  }

  /// Checks `entry` against the disk before it waits for a slot: a download already
  /// complete is skipped here, so skipping never waits behind transfers.
  func admission(for entry: ManifestEntry) -> Admission {
    guard entry.operation == .download else {
      return .job(EntryJob(entry, runner: self, local: nil, expectedBytes: nil))
    }
    let local: LocalDownload
    do throws(TransferError) {
      local = try localFiles(for: entry)
    } catch {
      return .ended(
        Ending(outcome: Scheduler.outcome(entry, error: error), sizeInManifest: entry.size != nil))
    }
    if let (checked, size) = alreadyComplete(entry, local) {
      if options.refresh, entry.size == nil, entry.expectedDigests.isEmpty,
        let check = local.refreshCheck()
      {
        let job = EntryJob(
          entry, runner: self, local: local.holdsDescriptor ? nil : local, expectedBytes: nil)
        job.refresh = check
        return .job(job)
      }
      var outcome = Scheduler.outcome(entry, error: Scheduler.cancelledError)
      outcome.status = .skipped
      outcome.error = nil
      outcome.sha256 = checked.digests[.sha256]
      outcome.digests = checked.digests
      outcome.verified = checked.verified
      return .ended(
        Ending(outcome: outcome, completedBytes: size, sizeInManifest: entry.size != nil))
    }
    // An entry in a subfolder holds that folder open: it waits without it.
    let kept = local.holdsDescriptor ? nil : local
    return .job(EntryJob(entry, runner: self, local: kept, expectedBytes: entry.size))
  }

  /// `admission(for:)` of each entry, in order; with `parallel`, spread over the cores
  /// (a rerun's skip checks read and hash every destination).
  func admissions(for entries: [ManifestEntry], parallel: Bool) -> [Admission] {
    let workers = parallel ? min(ProcessInfo.processInfo.activeProcessorCount, entries.count) : 1
    guard workers > 1 else { return entries.map(admission(for:)) }
    let results = AdmissionSlots(count: entries.count)
    DispatchQueue.concurrentPerform(iterations: workers) { worker in
      for index in stride(from: worker, to: entries.count, by: workers) {
        results.store(admission(for: entries[index]), at: index)
      }
    }
    return results.take()
  }

  /// One result slot per entry, each written by exactly one worker of `admissions`: raw
  /// storage, so that writers of different slots never touch shared bookkeeping.
  private final class AdmissionSlots: @unchecked Sendable {
    private let slots: UnsafeMutableBufferPointer<Admission?>
    init(count: Int) {
      slots = .allocate(capacity: count)
      slots.initialize(repeating: nil)
    }
    deinit {
      slots.deinitialize()
      slots.deallocate()
    }
    func store(_ admission: Admission, at index: Int) { slots[index] = admission }
    func take() -> [Admission] { slots.map { $0! } }
  }

  func localFiles(for entry: ManifestEntry) throws(TransferError) -> LocalDownload {
    try LocalDownload(
      directory: directory, path: entry.path, durable: options.fsync,
      remoteTime: options.remoteTime, recordsETag: options.refresh)
  }

  /// Starts jobs that hold their first slot: on the engine when it may carry them, each
  /// in a task otherwise.
  func dispatch(_ jobs: [EntryJob]) {
    guard !jobs.isEmpty else { return }
    var carried: [any TransportJob] = []
    for job in jobs {
      if engine != nil,
        !(job.entry.operation == .download && job.refresh == nil && maySegment(job.entry)),
        !goesInParts(job.entry, to: job.entry.url)
      {
        carried.append(job)
      } else {
        spawn(job) { [self] in await run(job, holdingSlot: true) }
      }
    }
    if !carried.isEmpty { engine?.start(carried) }
  }

  /// Runs `body` for `job` in a task the run can cancel.
  func spawn(_ job: EntryJob, _ body: @escaping @Sendable () async -> Void) {
    let id = job.id
    let task = Task { [self] in
      await body()
      state.taskEnded(id: id)
    }
    state.register(task, id: id)
  }

  // MARK: Slots

  /// Waits for room to run one attempt against `host`; `false` when the run was cancelled.
  func acquireSlot(host: Int) async -> Bool {
    await state.acquireSlot(host: host)
  }

  /// Frees a slot taken for `host`, first noting how the host answered: `status` (a 429 or
  /// 503 makes haul polite to it) or, without one, whether it sent a response head at all
  /// (`answered`: it was reachable in this run, so a later refusal is an outage to wait
  /// out). Noting before freeing means a 429/503 lowers the host's limit before the freed
  /// slot can start another request there. The host is held for its `Retry-After`, capped
  /// as the entries' own delays are.
  func releaseSlot(
    host: Int, status: Int? = nil, retryAfter: Double? = nil, answered: Bool = false
  ) {
    dispatch(
      state.release(host: host, status: status, retryAfter: retryAfter, answered: answered))
  }

  /// Records how `job` ended after its last attempt.
  func end(_ job: EntryJob, with result: Result<Success, Failure>) {
    var outcome = Scheduler.outcome(job.entry, error: Scheduler.cancelledError)
    outcome.attempts = job.attempts
    outcome.bytes = job.counter.moved
    outcome.seconds = job.seconds
    let completed: Int64
    switch result {
    case .success(let success):
      outcome.status = success.unchanged ? .skipped : .ok
      outcome.error = nil
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
      outcome.error = failure.error
      completed = job.entry.size ?? 0
      if job.entry.operation == .download { job.local?.discardEmptyPartial() }
    }
    // A descriptor of the entry's own (its subfolder's) is closed now, not when the job goes.
    if job.local?.holdsDescriptor == true { job.local = nil }
    let ending = Ending(
      outcome: outcome, completedBytes: completed, activeID: job.begun ? job.id : nil,
      retired: job, sizeInManifest: job.entry.size != nil)
    // The event goes first: recording the last entry lets the run end and its summary go.
    events(.finished(outcome))
    state.end(ending)
  }

  // MARK: The slow path

  /// Carries on with `job` after an attempt that ended in `result` outside a task: a
  /// success ends the entry; a failure goes through the retry rules as in `run`.
  func continueAfter(_ job: EntryJob, _ result: Result<Success, Failure>, releasingSlot: Bool)
    async
  {
    if releasingSlot {
      switch result {
      case .success: releaseSlot(host: job.hostID, status: 200)
      case .failure(let failure):
        releaseSlot(
          host: job.hostID, status: failure.error.code.httpStatus, retryAfter: failure.retryAfter,
          answered: failure.answered)
      }
    }
    switch result {
    case .success: end(job, with: result)
    case .failure(let failure): await run(job, holdingSlot: false, after: failure)
    }
  }

  /// Runs `job`'s attempts over its sources, as `AttemptLoop` decides. `holdingSlot`: the
  /// first attempt's slot is already taken. `after`: the first attempt on the first source
  /// was made elsewhere (by the engine) and failed so; its slot is already given back.
  func run(_ job: EntryJob, holdingSlot: Bool, after first: Failure? = nil) async {
    let entry = job.entry
    let sources = entry.sources
    var loop = AttemptLoop(sources: sources.count, policy: retryPolicy)
    loop.begin()
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
        if let local = job.local {
          attempt = await download(job, from: url, into: local)
        } else {
          attempt = await upload(job, to: url)
        }
        switch attempt {
        case .success:
          releaseSlot(host: host, status: 200)
        case .failure(let failure):
          releaseSlot(
            host: host, status: failure.error.code.httpStatus, retryAfter: failure.retryAfter,
            answered: failure.answered)
        }
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
        end(job, with: .failure(Failure(error: error)))
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

  /// The destination's digests and what they matched (none when the entry expects none)
  /// and its length, when the entry is already complete and can be skipped; `nil`
  /// otherwise. Every expected digest (manifest and checksum files) is computed, in one
  /// read of the file, and must match.
  private func alreadyComplete(_ entry: ManifestEntry, _ local: LocalDownload)
    -> (AttemptSuccess, Int64)?
  {
    guard !local.isNew, let destination = local.destination(), destination.isRegularFile
    else { return nil }
    if let size = entry.size, destination.size != size { return nil }
    let expected = entry.expectedDigests
    if !expected.isEmpty {
      guard let (digests, _) = local.digestsOfDestination(expected.algorithms),
        case .success(let verified) = DownloadAttempt.check(entry, server: [], digests)
      else { return nil }
      return (
        AttemptSuccess(sha256: digests[.sha256], digests: digests, verified: verified),
        destination.size
      )
    }
    if entry.size == nil && local.partial() != nil { return nil }
    return (AttemptSuccess(), destination.size)
  }

  /// The size of an upload's file (symlinks followed, as the manifest allows), or nil
  /// when it is no regular file.
  func uploadLength(_ entry: ManifestEntry) -> Int64? {
    var info = stat()
    guard entry.operation == .upload, stat(uploadPath(entry), &info) == 0,
      info.st_mode & S_IFMT == S_IFREG
    else { return nil }
    return Int64(info.st_size)
  }

  /// Whether an upload of `entry` to `url` goes in parts (`S3MultipartUpload`), in a task.
  func goesInParts(_ entry: ManifestEntry, to url: URL) -> Bool {
    guard options.s3Multipart != nil, entry.operation == .upload else { return false }
    return S3MultipartUpload.applies(
      entry, url: url, options: options.s3Multipart, path: uploadPath(entry))
  }

  func uploadPath(_ entry: ManifestEntry) -> String {
    options.outputDirectory + "/" + entry.path
  }

  /// The request of one exchange of `entry` with `url`: the run's and the entry's headers,
  /// and for a download `Want-Repr-Digest` (unless `--no-server-digests`, or a header of that
  /// name is given).
  func request(_ entry: ManifestEntry, _ url: URL) -> TransferRequest {
    let headers: [HTTPField]
    if entry.operation == .download, options.serverDigests,
      !entry.headers.contains(where: { $0.hasName(ServerDigests.wantReprDigest.name) })
    {
      headers = entry.headers.isEmpty ? downloadHeaders : downloadHeaders + entry.headers
    } else {
      headers = options.headers + entry.headers
    }
    return TransferRequest(
      url: url, method: entry.method, headers: headers,
      stallTimeout: options.stallTimeout, connectTimeout: min(options.stallTimeout, 30))
  }

  /// Sends `request` (adapted by the interceptor, redirects followed); a 401 is sent once
  /// more when the interceptor refreshed its credential, without using up a retry. The
  /// re-sent request is an attempt of `job` all the same (SPEC: "an attempt is one try to
  /// move the entry's bytes"): it is counted and announced with a `retry` event.
  func send(
    _ request: TransferRequest, for entry: ManifestEntry, sink: any ResponseSink,
    job: EntryJob? = nil
  ) async throws(TransferError) -> TransferResponse {
    guard let interceptor = options.interceptor else {
      return try await Exchange.perform(request, on: transport, sink: sink)
    }
    var adapted = request
    try await interceptor.adapt(&adapted, for: entry)
    let response = try await Exchange.perform(adapted, on: transport, sink: sink)
    guard response.head.status == 401, try await interceptor.retry(after: adapted, for: entry)
    else { return response }
    if let job {
      events(.retry(job.info, attempt: job.attempts + 1, code: .http(401), delay: 0))
      job.attempts += 1
    }
    adapted = request
    try await interceptor.adapt(&adapted, for: entry)
    return try await Exchange.perform(adapted, on: transport, sink: sink)
  }

  // MARK: Download

  private func download(_ job: EntryJob, from url: URL, into local: LocalDownload) async
    -> Result<Success, Failure>
  {
    let entry = job.entry
    // A refresh check is one conditional request: its answer is not split in segments.
    if job.refresh == nil, maySegment(entry),
      let result = await downloadSegmented(
        entry, from: url, into: local, counter: job.counter, job: job)
    {
      return result
    }
    var fresh = false
    while true {
      let attempt: DownloadAttempt
      switch DownloadAttempt.prepare(
        entry, base: request(entry, url), local: local, counter: job.counter, fresh: fresh,
        hashes: options.digestsWithoutChecksum, serverDigests: options.serverDigests,
        refresh: job.refresh)
      {
      case .success(let prepared):
        attempt = prepared
      case .failure(.failed(let failure)):
        return .failure(failure)
      case .failure(.restart(let reason)):
        if fresh { return .failure(Failure(error: TransferError(.protocol, reason))) }
        fresh = true
        continue
      case .failure(.received), .failure(.unchanged):
        preconditionFailure("prepare never reports a response")
      }
      defer { attempt.end() }
      let response: Result<TransferResponse, TransferError>
      do throws(TransferError) {
        response = .success(
          try await send(attempt.request, for: entry, sink: attempt.sink, job: job))
      } catch {
        response = .failure(error)
      }
      switch attempt.judge(response) {
      case .failed(let failure):
        return .failure(failure)
      case .restart(let reason):
        if fresh { return .failure(Failure(error: TransferError(.protocol, reason))) }
        fresh = true
        continue
      case .unchanged:
        return .success(Success(unchanged: true))
      case .received:
        let digests = attempt.sink.hashes ? await attempt.sink.digest() : nil
        return attempt.complete(digests: digests)
      }
    }
  }

  // MARK: Upload

  private func upload(_ job: EntryJob, to url: URL) async -> Result<Success, Failure> {
    let entry = job.entry
    if let multipart = options.s3Multipart, goesInParts(entry, to: url) {
      return await S3MultipartUpload(
        runner: self, job: job, url: url, source: uploadPath(entry), options: multipart
      ).run()
    }
    switch UploadAttempt.prepare(
      entry, base: request(entry, url), path: uploadPath(entry), length: nil,
      counter: job.counter)
    {
    case .failure(let failure):
      return .failure(failure)
    case .success((let request, let sink)):
      do throws(TransferError) {
        return UploadAttempt.judge(
          .success(try await send(request, for: entry, sink: sink, job: job)), sink: sink)
      } catch {
        return UploadAttempt.judge(.failure(error), sink: sink)
      }
    }
  }
}
