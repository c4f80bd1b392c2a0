import HaulCore
import HaulS3
import HaulServe

/// The engine `haul serve` gives the daemon: a job's options are read as `haul run`'s
/// arguments after the daemon's own defaults, and its run is a `haul run` of its manifest
/// (the same transport, scheduler options and checks) without a terminal.
struct ServeEngine: JobEngine {
  /// The run options `haul serve` was started with: every job's defaults.
  let defaults: [String]
  /// The daemon's `--auth-command` tokens, primed once at start; never a job option.
  let interceptor: (any RequestInterceptor)?

  /// The options a job may set. The rest are the daemon's: what runs commands or reads
  /// files (`--auth-command`, `--cacert`, `--checksums`), what bounds all jobs together
  /// (`-j`, `--per-host`, `--loops`, `--transport`, `--proxy`, `--fsync`), and what only a
  /// terminal run has (`--report`, `--events`, `--failed`, `--quiet`, `--shard`).
  static let jobOptions: Set<String> = [
    "max-rate", "retries", "header", "refresh", "segments", "min-segment-size", "timeout",
    "no-remote-time", "no-server-digests", "recursive", "depth", "include", "exclude",
    "resumable", "abort-incomplete", "s3", "s3-endpoint", "s3-region", "s3-addressing",
    "s3-page-size", "multipart-threshold", "part-size", "part-concurrency", "hf-cache",
  ]

  func check(_ job: JobSpec) throws(ServiceError) -> ManifestStatistics {
    let options = try runOptions(job)
    let s3 = try s3Setup(options)
    do throws(ManifestError) {
      return try manifest(job, options, s3, checking: true).validate()
    } catch {
      throw ServiceError(.manifest, error.description)
    }
  }

  func run(
    _ job: JobSpec, control: JobControl, events: @escaping @Sendable (TransferEvent) -> Void
  ) async -> RunSummary {
    let options: RunOptions
    let s3: S3Setup?
    let statistics: ManifestStatistics
    do throws(ServiceError) {
      options = try runOptions(job)
      s3 = try s3Setup(options)
      if let known = job.statistics {
        statistics = known
      } else {
        do throws(ManifestError) {
          statistics = try manifest(job, options, s3, checking: true).validate()
        } catch {
          throw ServiceError(.manifest, error.description)
        }
      }
    } catch {
      // The job was checked when it was added; what fails now (a credential that went
      // away) ends the run with nothing done and the job in `error`.
      Console.error("haul serve: job \(job.id) cannot run: \(error.message)\n")
      return RunSummary(
        total: 0, succeeded: 0, skipped: 0, failed: 1, bytes: 0, seconds: 0, transport: "",
        cancelled: false)
    }
    let transport = TransportFactory.make(options.transport, options: options.transportOptions)
    let scheduler = Scheduler(
      transport: transport,
      options: options.schedulerOptions(statistics, interceptor: interceptor, s3: s3))
    control.onStop { Task { await scheduler.cancel() } }
    let summary = Locked<RunSummary?>(nil)
    let entries = manifest(job, options, s3, checking: false).entries()
    await scheduler.run(entries) { event in
      if case .summary(let value) = event { summary.withLock { $0 = value } }
      events(event)
    }
    await transport.shutdown()
    return summary.withLock { $0 }
      ?? RunSummary(
        total: 0, succeeded: 0, skipped: 0, failed: 0, bytes: 0, seconds: 0,
        transport: transport.name, cancelled: control.isStopped)
  }

  /// The job's options over the daemon's defaults, checked as `haul run` checks them.
  private func runOptions(_ job: JobSpec) throws(ServiceError) -> RunOptions {
    if let name = job.options.values.keys.sorted().first(where: { !Self.jobOptions.contains($0) }) {
      throw ServiceError(.usage, "'\(name)' is not a job option (a daemon option, or unknown)")
    }
    // With `hf-cache` the job's output is the Hub cache it fills (`haul add` resolved it).
    let cache = job.options.values["hf-cache"] != nil
    let options = JobOptions(job.options.values.filter { $0.key != "hf-cache" })
    let output = cache ? ["--hf-cache=" + job.output] : ["-o", job.output]
    let arguments = defaults + options.arguments + output + ["--", job.manifestPath]
    do throws(UsageError) {
      return try RunOptions(ParsedArguments.parse(arguments, for: Commands.run))
    } catch {
      throw ServiceError(.usage, error.message)
    }
  }

  private func s3Setup(_ options: RunOptions) throws(ServiceError) -> S3Setup? {
    guard let choice = options.s3 else { return nil }
    switch S3Setup.resolve(
      endpoint: choice.endpoint, region: choice.region, addressing: choice.addressing)
    {
    case .success(let setup): return setup
    case .failure(let problem): throw ServiceError(.usage, "s3: \(problem.message)")
    }
  }

  /// The job's manifest, named `manifest` in messages (its file lives in the daemon's state).
  private func manifest(_ job: JobSpec, _ options: RunOptions, _ s3: S3Setup?, checking: Bool)
    -> Manifest
  {
    var manifest = Manifest(
      path: job.manifestPath, displayName: "manifest", outputDirectory: options.output,
      checksums: ChecksumTable(), schemes: urlSchemes(s3, hfCache: options.hfCache),
      refusesIPv6Literals: checking && TransportFactory.refusesIPv6Literals(options.transport))
    manifest.recursive = options.recursive
    manifest.refusesResumableIETF =
      checking && TransportFactory.refusesIETFUploads(options.transport)
    return manifest
  }
}
