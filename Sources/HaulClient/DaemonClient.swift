import Foundation

/// A client of the haul daemon (`haul serve`): submits jobs, controls and inspects them, and
/// follows the daemon's events (docs/service.md).
///
/// Each call is one HTTP/1.1 exchange over libcurl, on the control socket or on loopback
/// TCP with the bearer token. It runs on a thread of its own, never on one of Swift's
/// cooperative threads, so a long answer (a big report) holds no task executor. Cancelling
/// the awaiting task stops the exchange at once, and the call throws `.cancelled`.
///
/// A value: copies share nothing, and any number of calls may run at once.
public struct DaemonClient: Sendable {
  /// Where the daemon answers.
  public let address: DaemonAddress

  /// A client of the daemon at `address`; by default the control socket
  /// (`DaemonAddress.default()`). Nothing is sent until the first call.
  public init(address: DaemonAddress = .default()) {
    self.address = address
  }

  // MARK: Jobs

  /// Queues a job from a manifest (JSON Lines, checked as `haul run` checks it; a bad line
  /// fails with `.api(code: "manifest")`, naming the line, and queues nothing).
  /// - Parameters:
  ///   - output: the output directory, inside one of the daemon's roots; `nil` for its first
  ///     root.
  ///   - options: job options by name, as `haul run` spells them (`"max-rate": "10M"`).
  /// - Returns: the job as queued.
  /// - SeeAlso: `POST /v1/jobs`.
  ///   - paused: queue the job paused; it starts once resumed.
  public func submit(
    manifest: String, output: String? = nil, options: [String: JobOption] = [:],
    paused: Bool = false
  ) async throws(DaemonError) -> Job {
    let body = SubmitBody(manifest: manifest, output: output, options: options, paused: paused)
    return try await call("POST", "/v1/jobs", body: DaemonJSON.encode(body), as: Job.self)
  }

  /// Queues a job from a manifest file that the daemon copies, streamed, into its state: a
  /// manifest of any size, without a request body that holds it. The daemon takes a file
  /// only on its control socket, whose clients are its own user; `path` must be absolute.
  /// - SeeAlso: `submit(manifest:output:options:paused:)`.
  public func submit(
    manifestFile path: String, output: String? = nil, options: [String: JobOption] = [:],
    paused: Bool = false
  ) async throws(DaemonError) -> Job {
    let body = SubmitBody(manifestFile: path, output: output, options: options, paused: paused)
    return try await call("POST", "/v1/jobs", body: DaemonJSON.encode(body), as: Job.self)
  }

  /// Queues a job that downloads each URL into the output directory.
  /// - SeeAlso: `submit(manifest:output:options:)`.
  public func submit(
    urls: [String], output: String? = nil, options: [String: JobOption] = [:],
    paused: Bool = false
  ) async throws(DaemonError) -> Job {
    let body = SubmitBody(urls: urls, output: output, options: options, paused: paused)
    return try await call("POST", "/v1/jobs", body: DaemonJSON.encode(body), as: Job.self)
  }

  /// Every job the daemon holds, in queue order.
  public func jobs() async throws(DaemonError) -> [Job] {
    try await call("GET", "/v1/jobs", as: JobList.self).jobs
  }

  /// One job, with `failures`, its first 100 failed entries. Throws `.api(status: 404, ...)`
  /// for a job the daemon does not know.
  public func job(_ id: String) async throws(DaemonError) -> Job {
    try await call("GET", Self.jobPath(id), as: Job.self)
  }

  /// Pauses a job: its running transfers end keeping their partial files.
  public func pause(_ id: String) async throws(DaemonError) -> Job {
    try await call("POST", Self.jobPath(id, "pause"), as: Job.self)
  }

  /// Puts a paused job back in the queue.
  public func resume(_ id: String) async throws(DaemonError) -> Job {
    try await call("POST", Self.jobPath(id, "resume"), as: Job.self)
  }

  /// Cancels a job; it ends `removed`.
  public func cancel(_ id: String) async throws(DaemonError) -> Job {
    try await call("POST", Self.jobPath(id, "cancel"), as: Job.self)
  }

  /// Moves a job to `position` in the queue (0 first).
  public func move(_ id: String, to position: Int) async throws(DaemonError) -> Job {
    let body = try DaemonJSON.encode(ChangeBody(position: position, options: nil))
    return try await call("PATCH", Self.jobPath(id), body: body, as: Job.self)
  }

  /// Changes a job's options (`"max-rate": "10M"`); the others stay as they are.
  public func change(
    _ id: String, options: [String: JobOption]
  ) async throws(DaemonError) -> Job {
    let body = try DaemonJSON.encode(ChangeBody(position: nil, options: options))
    return try await call("PATCH", Self.jobPath(id), body: body, as: Job.self)
  }

  /// Forgets an ended job (its files stay). A job that has not ended fails with
  /// `.api(code: "conflict")`.
  public func forget(_ id: String) async throws(DaemonError) {
    _ = try await exchange(DaemonRequest("DELETE", Self.jobPath(id)))
  }

  /// How the job's ended entries ended, a page at a time, as transfer objects of the report.
  /// - Parameters:
  ///   - state: only the entries that ended so; `nil` for all.
  ///   - offset: how many matching entries to skip.
  ///   - limit: the most to answer; `nil` for the daemon's default.
  public func entries(
    _ id: String, state: EntryStatus? = nil, offset: Int = 0, limit: Int? = nil
  ) async throws(DaemonError) -> [JobEntry] {
    var query: [String] = []
    if let state { query.append("state=\(Self.escaped(state.rawValue))") }
    if offset != 0 { query.append("offset=\(offset)") }
    if let limit { query.append("limit=\(limit)") }
    var path = Self.jobPath(id, "entries")
    if !query.isEmpty { path += "?" + query.joined(separator: "&") }
    return try await call("GET", path, as: EntryList.self).entries
  }

  /// The job's `--report` document so far (docs/manual.md, "Report"), as the daemon wrote
  /// it.
  public func report(_ id: String) async throws(DaemonError) -> Data {
    try await exchange(DaemonRequest("GET", Self.jobPath(id, "report"))).body
  }

  // MARK: The daemon

  /// The daemon's counters.
  public func stats() async throws(DaemonError) -> DaemonStats {
    try await call("GET", "/v1/stats", as: DaemonStats.self)
  }

  /// Asks the daemon to stop as on SIGTERM; returns once it has accepted.
  public func shutdown() async throws(DaemonError) {
    _ = try await exchange(DaemonRequest("POST", "/v1/shutdown"))
  }

  /// The daemon's answer to `method` `path` (with `body`) as it sent it: for tools that
  /// pass the daemon's JSON on unchanged (`haul jobs --json`). An error answer throws as
  /// every call does.
  public func raw(_ method: String, _ path: String, body: Data? = nil) async throws(DaemonError)
    -> Data
  {
    try await exchange(DaemonRequest(method, path, body: body)).body
  }

  /// The daemon's events, after the event `since` (`nil`: from now on). Nothing is sent
  /// until the sequence is iterated; see `DaemonEvents` for reconnection, back-pressure and
  /// cancellation.
  public func events(since: Int64? = nil, failuresOnly: Bool = false) -> DaemonEvents {
    DaemonEvents(address: address, since: since, failuresOnly: failuresOnly)
  }
}
