import Foundation
import HaulCore

/// A job as a client submits it.
public struct JobSubmission: Sendable {
  /// Where the manifest comes from.
  public enum Source: Sendable {
    /// The manifest's text (JSON Lines, or bare URLs one per line).
    case text(String)
    /// URLs, each one download.
    case urls([String])
    /// A file the daemon copies, streamed: offered on the control socket only, whose
    /// clients are the daemon's own user, so a manifest of a million lines never has to
    /// pass through a request body.
    case file(String)
  }

  public var source: Source
  public var output: String?
  public var options: JobOptions
  /// Queue the job paused.
  public var paused: Bool

  public init(source: Source, output: String?, options: JobOptions, paused: Bool = false) {
    self.source = source
    self.output = output
    self.options = options
    self.paused = paused
  }
}

extension Daemon {
  /// Checks and queues a job; returns it once it is committed to the journal.
  public func submit(_ submission: JobSubmission) throws(ServiceError) -> [String: Any] {
    guard !isStopping else { throw ServiceError(.conflict, "the daemon is shutting down") }
    let id = Self.newJobID()
    let output = try configuration.roots.resolve(submission.output)
    let manifest = Self.manifestsDirectory(configuration.stateDirectory) + "/\(id).jsonl"
    let name = try writeManifest(submission.source, to: manifest)
    let spec = JobSpec(id: id, manifestPath: manifest, output: output, options: submission.options)
    let statistics: ManifestStatistics
    do throws(ServiceError) {
      statistics = try engine.check(spec)
    } catch {
      unlink(manifest)
      throw error
    }
    return core.withLock { core in
      let position = (core.jobs.values.map(\.position).max() ?? -1) + 1
      let record = JobRecord(
        id: id, position: position, state: submission.paused ? .paused : .waiting,
        output: output, options: submission.options.jsonText, manifest: manifest, name: name,
        total: statistics.entries,
        expectedBytes: statistics.entriesWithoutSize == 0 ? statistics.knownBytes : nil,
        succeeded: 0, skipped: 0, failed: 0, bytes: 0, created: Daemon.now, started: nil,
        ended: nil)
      core.jobs[id] = record
      let actions = core.queue.add(id, paused: submission.paused)
      enqueueEvent("job-added", job: id, data: jobObject(record, core: core))
      flush(&core, inserted: id)
      perform(actions, in: &core)
      return jobObject(core.jobs[id]!, core: core)
    }
  }

  /// Every job, in queue order.
  public func listJobs() -> [[String: Any]] {
    core.withLock { core in
      core.queue.items.compactMap { core.jobs[$0.id] }.map { jobObject($0, core: core) }
    }
  }

  /// One job, with its first failed entries.
  public func job(_ id: String) throws(ServiceError) -> [String: Any] {
    var object = try core.withLock { (core) throws(ServiceError) -> [String: Any] in
      flush(&core)
      guard let record = core.jobs[id] else { throw Self.notFound(id) }
      return jobObject(record, core: core)
    }
    object["failures"] = try entries(id, status: .failed, offset: 0, limit: 100).map {
      JSONText.object($0)
    }
    return object
  }

  /// Pauses job `id`: its running transfers stop and keep their partial files.
  public func pause(_ id: String) throws(ServiceError) -> [String: Any] {
    try change(id, event: "job-paused") { (queue) throws(JobQueue.Refusal) in
      try queue.pause(id)
    }
  }

  /// Puts paused job `id` back in the queue.
  public func resume(_ id: String) throws(ServiceError) -> [String: Any] {
    try change(id, event: "job-resumed") { (queue) throws(JobQueue.Refusal) in
      try queue.resume(id)
    }
  }

  /// Cancels job `id`: it is `removed`; its files and partial files stay.
  public func cancel(_ id: String) throws(ServiceError) -> [String: Any] {
    try change(id, event: nil) { (queue) throws(JobQueue.Refusal) in try queue.cancel(id) }
  }

  /// Moves job `id` to `position` in the queue and/or changes its options; an active job
  /// whose options changed runs again with them (finished files are skipped, partial ones
  /// resume).
  public func modify(_ id: String, position: Int?, options: JobOptions?) throws(ServiceError)
    -> [String: Any]
  {
    if let options, !options.values.isEmpty {
      let merged = try core.withLock { (core) throws(ServiceError) -> JobSpec in
        guard let record = core.jobs[id] else { throw Self.notFound(id) }
        return JobSpec(
          id: id, manifestPath: record.manifest, output: record.output,
          options: JobOptions.fromJSONText(record.options).merging(options))
      }
      _ = try engine.check(merged)
      _ = try change(id, event: nil) { (queue) throws(JobQueue.Refusal) in
        try queue.restart(id)
      } record: {
        $0.options = merged.options.jsonText
      }
    }
    if let position {
      _ = try change(id, event: nil) { (queue) throws(JobQueue.Refusal) in
        try queue.move(id, to: position)
      } record: { _ in
      }
    }
    return try job(id)
  }

  /// Forgets ended job `id`: its record, outcomes, events and manifest; its files stay.
  public func forget(_ id: String) throws(ServiceError) {
    let manifest = try core.withLock { (core) throws(ServiceError) -> String in
      guard let record = core.jobs[id] else { throw Self.notFound(id) }
      do throws(JobQueue.Refusal) {
        try core.queue.forget(id)
      } catch {
        throw Self.refusal(error, id)
      }
      flush(&core)
      core.jobs[id] = nil
      do throws(JournalError) {
        try journal.write { (write: inout JournalWrite) throws(JournalError) in
          try write.deleteJob(id)
        }
      } catch {
        throw ServiceError(.io, "cannot forget job \(id): \(error)")
      }
      return record.manifest
    }
    unlink(manifest)
  }

  /// Entries of job `id` as the report shows them (JSON texts), in line order.
  public func entries(_ id: String, status: EntryRecord.Status?, offset: Int, limit: Int)
    throws(ServiceError) -> [String]
  {
    try core.withLock { (core) throws(ServiceError) in
      guard core.jobs[id] != nil else { throw Self.notFound(id) }
      flush(&core)
    }
    do throws(JournalError) {
      return try journal.entries(job: id, status: status, offset: offset, limit: limit).map(
        \.report)
    } catch {
      throw ServiceError(.io, "cannot read job \(id)'s entries: \(error)")
    }
  }

  /// The `--report` document of job `id` so far, handed to `write` in pieces.
  public func report(_ id: String, write: (String) -> Bool) throws(ServiceError) {
    let record = try core.withLock { (core) throws(ServiceError) -> JobRecord in
      guard let record = core.jobs[id] else { throw Self.notFound(id) }
      flush(&core)
      return record
    }
    let summary: [String: Any] = [
      "total": record.total, "succeeded": record.succeeded, "skipped": record.skipped,
      "failed": record.failed, "bytes": record.bytes, "state": record.state.rawValue,
    ]
    guard write("{\"summary\": \(JSONText.encode(summary)), \"transfers\": [") else { return }
    var first = true
    do throws(JournalError) {
      try journal.forEachEntry(job: id, status: nil) { entry in
        defer { first = false }
        return write((first ? "\n" : ",\n") + entry.report)
      }
    } catch {
      throw ServiceError(.io, "cannot read job \(id)'s entries: \(error)")
    }
    _ = write("\n]}\n")
  }

  /// The daemon's counters.
  public func stats() -> [String: Any] {
    core.withLock { core in
      var counts: [String: Int] = [:]
      for item in core.queue.items { counts[item.state.rawValue, default: 0] += 1 }
      let rate = core.live.values.reduce(0) { $0 + $1.rate }
      return [
        "jobs": core.jobs.count, "active": counts["active", default: 0],
        "waiting": counts["waiting", default: 0], "paused": counts["paused", default: 0],
        "rate": rate, "last_event_id": pending.withLock { $0.nextEventID } - 1,
        "subscribers": core.subscribers.count,
      ]
    }
  }

  /// Applies a queue call to job `id`, commits the job with `event`, and carries out what
  /// the queue says.
  private func change(
    _ id: String, event: String?,
    _ call: (inout JobQueue) throws(JobQueue.Refusal) -> [JobQueue.Action],
    record update: (inout JobRecord) -> Void = { _ in }
  ) throws(ServiceError) -> [String: Any] {
    try core.withLock { (core) throws(ServiceError) -> [String: Any] in
      guard core.jobs[id] != nil else { throw Self.notFound(id) }
      let before = core.queue
      let actions: [JobQueue.Action]
      do throws(JobQueue.Refusal) {
        actions = try call(&core.queue)
      } catch {
        throw Self.refusal(error, id)
      }
      update(&core.jobs[id]!)
      let changed = before != core.queue
      if let event, changed {
        var record = core.jobs[id]!
        record.state = core.queue.item(id)?.state ?? record.state
        enqueueEvent(event, job: id, data: jobObject(record, core: core))
      }
      settle(id, in: &core)
      perform(actions, in: &core)
      return jobObject(core.jobs[id]!, core: core)
    }
  }

  private func writeManifest(_ source: JobSubmission.Source, to path: String)
    throws(ServiceError) -> String
  {
    let temporary = path + ".new"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      throw ServiceError(.io, "cannot store the manifest: \(String(cString: strerror(errno)))")
    }
    var name = "manifest"
    var ok = true
    switch source {
    case .text(let text):
      ok = Self.writeAll(fd, Array(text.utf8))
    case .urls(let urls):
      guard !urls.isEmpty else {
        close(fd)
        unlink(temporary)
        throw ServiceError(.usage, "\"urls\" is empty")
      }
      for url in urls where url.contains(where: \.isNewline) || url.isEmpty {
        close(fd)
        unlink(temporary)
        throw ServiceError(.usage, "a URL must be one line")
      }
      ok = Self.writeAll(fd, Array(urls.map { $0 + "\n" }.joined().utf8))
      name = urls.count == 1 ? urls[0] : "\(urls[0]) and \(urls.count - 1) more"
    case .file(let file):
      let input = open(file, O_RDONLY | O_CLOEXEC)
      guard input >= 0 else {
        close(fd)
        unlink(temporary)
        throw ServiceError(
          .manifest, "\(file): cannot read: \(String(cString: strerror(errno)))")
      }
      var buffer = [UInt8](repeating: 0, count: 1 << 16)
      while ok {
        let got = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
        if got < 0, errno == EINTR { continue }
        if got <= 0 {
          ok = got == 0
          break
        }
        ok = Self.writeAll(fd, Array(buffer[0..<got]))
      }
      close(input)
      name = (file as NSString).lastPathComponent
    }
    // A crash of the daemon loses nothing the kernel holds; a power cut does, so with
    // `--fsync` the bytes and then the rename reach the disk before the job's row is
    // committed, which therefore never names a manifest that is not there.
    let durable = configuration.fsync
    ok = ok && (!durable || fsync(fd) == 0)
    close(fd)
    guard ok, rename(temporary, path) == 0 else {
      unlink(temporary)
      throw ServiceError(.io, "cannot store the manifest: \(String(cString: strerror(errno)))")
    }
    if durable {
      let folder = open(
        Self.manifestsDirectory(configuration.stateDirectory), O_RDONLY | O_DIRECTORY)
      if folder >= 0 {
        fsync(folder)
        close(folder)
      }
    }
    return name
  }

  private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
    bytes.withUnsafeBytes { HaulCore.writeAll(fd, $0) }
  }

  /// 16 hex digits from the system's random source.
  static func newJobID() -> String {
    var generator = SystemRandomNumberGenerator()
    let value = generator.next() as UInt64
    let hex = String(value, radix: 16)
    return String(repeating: "0", count: 16 - hex.count) + hex
  }

  static func notFound(_ id: String) -> ServiceError {
    ServiceError(.notFound, "no job \(id)")
  }

  static func refusal(_ refusal: JobQueue.Refusal, _ id: String) -> ServiceError {
    switch refusal {
    case .notFound: notFound(id)
    case .conflict(let state): ServiceError(.conflict, "job \(id) is \(state.rawValue)")
    }
  }
}
