import Foundation
import HaulCore

/// `haul bench MANIFEST`: runs the same manifest through each transport at each `-j` value,
/// `--repeat` rounds interleaved (curl, urlsession, curl, urlsession, ...), each run into a
/// fresh folder, in
/// this process through the library (a `Scheduler` per run, a new transport per run), and
/// prints the comparison. Exit status 0 when every run succeeded, 1 otherwise.
struct BenchCommand {
  let options: BenchOptions

  func execute() async -> ExitCode {
    let input: ManifestInput
    let statistics: ManifestStatistics
    do throws(ManifestError) {
      input = try ManifestInput(argument: options.manifest)
      statistics = try input.manifest(output: options.output, transports: options.transports)
        .validate()
    } catch {
      Console.error(error.description + "\n")
      return .usage
    }
    let uploads = input.manifest(output: options.output).entries()
      .filter { $0.operation == .upload }.map(\.path)
    let directory = BenchDirectory(output: options.output, uploads: uploads)
    defer { directory.removeAll() }

    var runs: [BenchRun] = []
    var peakIsPerRun = true
    for round in 1...options.repeats {
      for level in options.levels {
        for choice in options.transports {
          let folder: String
          do {
            folder = try directory.make(transport: choice.rawValue, round: round)
          } catch {
            Console.error("haul bench: cannot prepare a folder for the run: \(error)\n")
            return .failures
          }
          let run = await measure(
            choice, level: level, round: round, manifest: input.manifest(output: folder),
            folder: folder, statistics: statistics, peakIsPerRun: &peakIsPerRun)
          directory.remove(folder)
          Console.error(
            "haul bench: round \(round) \(choice.rawValue) -j \(level.label): "
              + "\(run.succeeded) ok, \(run.skipped) skipped, \(run.failed) failed in "
              + "\(String(format: "%.3f", run.seconds)) s\n")
          runs.append(run)
        }
      }
    }

    let report = BenchReport(
      manifest: input.displayName, statistics: statistics, options: options,
      peakIsPerRun: peakIsPerRun, runs: runs)
    Console.output(report.table)
    if let path = options.json {
      do {
        try report.json.write(toFile: path, atomically: true, encoding: .utf8)
      } catch {
        Console.error("haul bench: cannot write --json \(path): \(error)\n")
        return .failures
      }
    }
    return report.succeededAll ? .ok : .failures
  }

  /// Runs the manifest once through a new transport of kind `choice` into `folder`.
  private func measure(
    _ choice: TransportChoice, level: BenchLevel, round: Int, manifest: Manifest,
    folder: String, statistics: ManifestStatistics, peakIsPerRun: inout Bool
  ) async -> BenchRun {
    let transport = TransportFactory.make(choice, options: options.transportOptions(level))
    let scheduler = Scheduler(
      transport: transport,
      options: options.schedulerOptions(directory: folder, level: level, statistics))
    if !ResourceUsage.resetPeak() { peakIsPerRun = false }
    let before = ResourceUsage.now(afterReset: peakIsPerRun)
    let clock = ContinuousClock.now

    var first = BenchRun(
      transport: choice.rawValue, level: level.label, round: round, seconds: 0, succeeded: 0,
      skipped: 0, failed: 0,
      bytes: 0, cpuSeconds: 0, peakRSSBytes: 0, latencies: [], firstFailure: nil)
    first.latencies.reserveCapacity(statistics.entries)
    let tally = Locked(first)
    await scheduler.run(manifest.entries()) { event in
      switch event {
      case .finished(let outcome): tally.withLock { $0.add(outcome) }
      case .summary(let summary):
        tally.withLock {
          $0.concurrency = summary.concurrency
          $0.connections = summary.connections
          $0.firstByte = summary.meanFirstByte
        }
      default: break
      }
    }
    var run = tally.withLock { $0 }

    let elapsed = ContinuousClock.now - clock
    let after = ResourceUsage.now(afterReset: peakIsPerRun)
    await transport.shutdown()
    run.seconds = elapsed.inSeconds
    run.cpuSeconds = after.cpuSeconds - before.cpuSeconds
    run.peakRSSBytes = after.peakRSSBytes
    return run
  }
}
