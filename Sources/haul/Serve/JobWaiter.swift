import Foundation
import HaulClient

/// `haul wait` (and `haul add --wait`): follows jobs through the daemon's events until each
/// has ended, showing their progress as `haul run` does (a live line on a terminal, a plain
/// line every few seconds elsewhere, nothing with `--quiet`), and exits as `haul run` would:
/// 0 when every entry succeeded or was complete, 1 when some failed or a job was cancelled.
struct JobWaiter {
  let client: DaemonClient
  let quiet: Bool
  /// Seconds between plain progress lines when standard error is not a terminal.
  static let plainInterval = 5.0

  func wait(for ids: [String]) async throws(ClientFailure) -> ExitCode {
    // The event id first, then the jobs: an end that comes between is in both or in the
    // events after the id, never in neither.
    let since = try await call { () async throws(DaemonError) in try await client.stats() }
      .lastEventID
    var jobs: [String: Job] = [:]
    for id in ids {
      jobs[id] = try await call { () async throws(DaemonError) in try await client.job(id) }
    }
    var pending = Set(ids.filter { !jobs[$0]!.state.isEnded })
    let terminal = Console.errorIsTerminal
    var lastPlain = Date.distantPast
    var progress: [String: JobProgress] = [:]
    if !pending.isEmpty {
      do throws(DaemonError) {
        for try await event in client.events(since: since ?? 0, failuresOnly: true) {
          switch event.type {
          case "job-ended":
            if let job = event.job, pending.contains(job.id) {
              jobs[job.id] = job
              pending.remove(job.id)
            }
          case "entry-failed":
            if let entry = event.entry, pending.contains(entry.job) {
              if terminal, !quiet { Console.error("\r\u{1B}[K") }
              Console.error(
                "haul: failed: \(entry.path) (line \(entry.line)) of job \(entry.job): "
                  + "\(entry.code ?? "")\(entry.message.map { ": \($0)" } ?? "")\n")
            }
          case "progress":
            guard let sample = event.progress, pending.contains(sample.job), !quiet else { break }
            progress[sample.job] = sample
            let line = progress.keys.sorted().compactMap { progress[$0] }.map(Self.line)
              .joined(separator: "  ")
            if terminal {
              Console.error("\r\u{1B}[K" + line)
            } else if Date().timeIntervalSince(lastPlain) >= Self.plainInterval {
              lastPlain = Date()
              Console.error(line + "\n")
            }
          default:
            break
          }
          if pending.isEmpty { break }
        }
      } catch {
        throw ClientFailure(error)
      }
      if terminal, !quiet { Console.error("\r\u{1B}[K") }
    }
    var exit = ExitCode.ok
    for id in ids {
      guard let job = jobs[id] else { continue }
      Console.error(
        "haul: job \(id) \(job.state.rawValue): \(job.succeeded) ok, \(job.skipped) skipped, "
          + "\(job.failed) failed, \(Format.bytes(job.bytes))\n")
      if job.state != .complete { exit = .failures }
    }
    return exit
  }

  static func line(_ sample: JobProgress) -> String {
    "\(sample.job.prefix(8)): \(sample.done)/\(sample.total) files, \(Format.bytes(sample.bytes)), "
      + Format.rate(sample.rate)
  }
}
