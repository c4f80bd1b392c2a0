import Dispatch
import Glibc
import HaulCore
import HaulS3

/// `haul run MANIFEST`: validates the manifest, runs it through the scheduler, shows
/// progress, writes the events, report and `--failed` files, and ends with a summary line.
struct RunCommand {
  let requested: RunOptions

  init(options: RunOptions) {
    requested = options
  }

  func execute() async -> ExitCode {
    var options = requested
    switch OpenFileLimit.fit(options.concurrency) {
    case .run(let concurrency, let notice):
      // Under `-j auto` the limit only lowers the ceiling, which nobody asked for.
      if let notice, !options.automaticConcurrency { Console.error(notice + "\n") }
      options.concurrency = concurrency
    case .tooLow(let message):
      Console.error(message + "\n")
      return .usage
    }

    if case .failure(let problem) = HubSetup.current {
      Console.error(UsageError(problem.reason, command: "run").text + "\n")
      return .usage
    }
    var s3: S3Setup?
    if let choice = options.s3 {
      switch S3Setup.resolve(
        endpoint: choice.endpoint, region: choice.region, addressing: choice.addressing)
      {
      case .success(let setup): s3 = setup
      case .failure(let problem):
        Console.error(UsageError("--s3: \(problem.message)", command: "run").text + "\n")
        return .usage
      }
    }

    let checksums: ChecksumTable
    do throws(ChecksumFileError) {
      checksums = try ChecksumTable(reading: options.checksums)
    } catch {
      Console.error(error.description + "\n")
      return .usage
    }
    let input: ManifestInput
    let whole: ManifestStatistics
    do throws(ManifestError) {
      input = try ManifestInput(argument: options.manifest)
      whole = try input.manifest(
        output: options.output, checksums: checksums,
        schemes: urlSchemes(s3, hfCache: options.hfCache),
        transports: [options.transport], recursive: options.recursive
      ).validate()
    } catch {
      Console.error(error.description + "\n")
      return .usage
    }
    let manifest = input.manifest(
      output: options.output, checksums: checksums,
      schemes: urlSchemes(s3, hfCache: options.hfCache),
      recursive: options.recursive)
    let entries = RunEntries(entries: manifest.entries(), shard: options.shard)
    let statistics = entries.statistics(whole: whole)

    let report: ReportWriter?
    do throws(ReportFileError) {
      report = try options.report.map { (path) throws(ReportFileError) in
        try ReportWriter(path: path)
      }
    } catch {
      Console.error(UsageError("--report \(error)", command: "run").text + "\n")
      return .usage
    }
    var interceptor: (any RequestInterceptor)? = s3?.interceptor
    if let command = options.authCommand {
      let tokens = CommandTokenInterceptor(command: command)
      do throws(TransferError) {
        try await tokens.prime()
      } catch {
        Console.error(UsageError("--auth-command: \(error.message)", command: "run").text + "\n")
        return .usage
      }
      interceptor = tokens
    }
    let state: HTTPState?
    do throws(UsageError) {
      state = try options.session.state(command: "run") { Console.error($0 + "\n") }
    } catch {
      Console.error(error.text + "\n")
      return .usage
    }
    let transport = TransportFactory.make(options.transport, options: options.transportOptions)

    var schedulerOptions = options.schedulerOptions(statistics, interceptor: interceptor, s3: s3)
    schedulerOptions.httpState = state
    let scheduler = Scheduler(transport: transport, options: schedulerOptions)
    let display = ProgressDisplays.make(
      quiet: options.quiet || options.events,
      state: ProgressState(
        total: statistics.entries, manifestBytes: statistics.knownBytes,
        entriesWithoutSize: statistics.entriesWithoutSize))
    let signals = SignalWatcher(
      onFirst: {
        Task { await scheduler.cancel() }
      },
      onExit: {
        display.restoreTerminal()
        Console.error("haul: interrupted\n")
        _exit(ExitCode.interrupted.rawValue)
      })

    // Every step towards the run's end puts the signal's deadline off (`SignalWatcher`).
    let shared = SerializedConsumer(
      EventConsumer(
        options: options, report: report, display: display,
        progressed: { signals.progressed() }))
    await scheduler.run(entries) { event in shared.consume(event) }
    let consumer = shared.consumer
    display.finish()
    await Self.shutDown(transport, interrupted: signals.wasSignalled)
    signals.progressed()

    let summary =
      consumer.summary
      ?? consumer.tally.summary(
        seconds: 0, transport: transport.name, cancelled: signals.wasSignalled)
    var outputsWritten = consumer.reportError == nil
    if let error = consumer.reportError {
      Console.error("haul: cannot write the report: \(error)\n")
    }
    if let report, outputsWritten {
      do throws(ReportFileError) {
        try report.finish(summary: summary, progressed: { signals.progressed() })
      } catch {
        Console.error("haul: cannot write the report: \(error)\n")
        outputsWritten = false
      }
    }
    if let path = options.failed {
      do throws(ReportFileError) {
        try consumer.failures?.write(to: path)
      } catch {
        Console.error("haul: cannot write --failed: \(error)\n")
        outputsWritten = false
      }
      signals.progressed()
    }
    if let path = options.session.cookieJar, let state {
      do throws(CookieFileError) {
        try NetscapeCookieFile.write(state.cookies(), to: path)
      } catch {
        Console.error("haul: cannot write --cookie-jar: \(error)\n")
        outputsWritten = false
      }
    }
    // The report and `--failed` are on disk before the wait for a slow events reader.
    consumer.output?.finish()
    Console.error(SummaryLine.text(summary) + "\n")
    signals.stop()

    if summary.cancelled || signals.wasSignalled { return .interrupted }
    if let error = entries.failure {
      Console.error(
        "\(error); the manifest changed after it was checked: this line and the ones after "
          + "it did not run\n")
      return .usage
    }
    if summary.failed > 0 || !outputsWritten { return .failures }
    return .ok
  }

  /// After SIGINT/SIGTERM, the most seconds the transport's shutdown may take before the
  /// outputs are written anyway.
  static let interruptedShutdownSeconds = 1.5

  /// Shuts `transport` down; after a signal, waits at most `interruptedShutdownSeconds`.
  ///
  /// Why a bound: URLSession's shutdown waits for every task to end, and corelibs' cancel
  /// waits for its work queue, which a fast stream can keep busy for many seconds, past the
  /// signal's deadline, and the report would never be written. Every entry already has its
  /// outcome by then; what the transport still holds ends with the process.
  static func shutDown(_ transport: any Transport, interrupted: Bool) async {
    guard interrupted else {
      await transport.shutdown()
      return
    }
    let done = Locked(false)
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      @Sendable func finish() {
        let first = done.withLock { finished in
          defer { finished = true }
          return !finished
        }
        if first { continuation.resume() }
      }
      Task {
        await transport.shutdown()
        finish()
      }
      DispatchQueue.global().asyncAfter(deadline: .now() + interruptedShutdownSeconds) {
        finish()
      }
    }
  }
}

/// Hands each event to the outputs that want it: the events stream, the report, the
/// `--failed` list, the progress display, and failure messages on standard error.
///
/// The report's spool, the `--failed` list and the tally are written here, as the event
/// arrives; the `--events` lines go through `output`, whose own thread writes them, so that a
/// slow reader of standard output holds no transfer back (see `EventOutput`).
struct EventConsumer {
  let options: RunOptions
  let report: ReportWriter?
  let display: any ProgressDisplay
  /// The `--events` writer, when the option is given.
  let output: EventOutput?
  /// The `--failed` lines, gathered only when the option is given.
  let failures: FailedEntries?
  var tally = RunTally()
  var summary: RunSummary?
  /// The first error writing the report's spool; the report is then not written.
  var reportError: ReportFileError?
  /// Called for each entry's outcome and each slice of `--events` lines written: the steps
  /// that tell the signal's watchdog the run is still ending (`SignalWatcher.progressed`).
  let progressed: @Sendable () -> Void

  init(
    options: RunOptions, report: ReportWriter?, display: any ProgressDisplay,
    progressed: @escaping @Sendable () -> Void = {}
  ) {
    self.options = options
    self.report = report
    self.display = display
    self.progressed = progressed
    output = options.events ? EventOutput(written: progressed) : nil
    failures = options.failed.map { FailedEntries(spoolingBeside: $0) }
  }

  mutating func consume(_ event: TransferEvent) {
    // The report's spool first: an entry whose `done` line is printed is in the spool
    // even if the process dies right after.
    if case .finished(let outcome) = event, let report, reportError == nil {
      do throws(ReportFileError) {
        try report.add(outcome)
      } catch {
        reportError = error
      }
    }
    output?.enqueue(event)
    display.handle(event)
    switch event {
    case .finished(let outcome):
      progressed()
      tally.add(outcome)
      failures?.add(outcome)
      if outcome.status == .failed, let error = outcome.error, error.code != .cancelled {
        display.message("haul: failed: \(outcome.path) (line \(outcome.line)): \(error)")
      }
    case .summary(let summary):
      self.summary = summary
    case .started, .progress, .retry:
      break
    }
  }
}
