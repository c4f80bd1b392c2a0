import Foundation
import HaulCore
import Synchronization

@testable import HaulServe

/// A `JobEngine` for the daemon's own tests: each manifest line is an entry that "moves"
/// in `entrySeconds`, and a finished entry is remembered as a file in place would be (a
/// rerun reports it `skipped`, as the real engine's skip check does). It moves no bytes:
/// transfers themselves are proven by the CLI tests against nginx.
final class ScriptedJobEngine: JobEngine {
  let entrySeconds: Double
  /// Entries done, by job and line: the files "in place".
  let done = Mutex<Set<String>>([])
  /// How often each entry was moved (not skipped).
  let moved = Mutex<[String: Int]>([:])
  /// Lines that fail.
  let failing: Set<Int>

  init(entrySeconds: Double = 0.005, failing: Set<Int> = []) {
    self.entrySeconds = entrySeconds
    self.failing = failing
  }

  func lines(_ path: String) -> [String] {
    let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
  }

  func check(_ job: JobSpec) throws(ServiceError) -> ManifestStatistics {
    for (index, line) in lines(job.manifestPath).enumerated() where !line.hasPrefix("http") {
      throw ServiceError(.manifest, "manifest:\(index + 1): not a URL")
    }
    if job.options.values["max-rate"] == .text("bad") {
      throw ServiceError(.usage, "--max-rate 'bad' is not a rate")
    }
    return ManifestStatistics(
      entries: lines(job.manifestPath).count, knownBytes: 0, entriesWithoutSize: 1)
  }

  func run(
    _ job: JobSpec, control: JobControl, events: @escaping @Sendable (TransferEvent) -> Void
  ) async -> RunSummary {
    var tally = (ok: 0, skipped: 0, failed: 0)
    for (index, url) in lines(job.manifestPath).enumerated() {
      let line = index + 1
      let key = "\(job.id)#\(line)"
      if control.isStopped {
        return RunSummary(
          total: line - 1, succeeded: tally.ok, skipped: tally.skipped, failed: tally.failed,
          bytes: 0, seconds: 0, transport: "scripted", cancelled: true)
      }
      let path = "f\(line)"
      if done.withLock({ $0.contains(key) }) {
        tally.skipped += 1
        events(.finished(Self.outcome(line, url, path, .skipped)))
        continue
      }
      events(.started(EntryInfo(line: line, path: path, operation: .download, expectedBytes: nil)))
      try? await Task.sleep(for: .seconds(entrySeconds))
      moved.withLock { $0[key, default: 0] += 1 }
      if failing.contains(line) {
        tally.failed += 1
        events(
          .finished(
            Self.outcome(
              line, url, path, .failed, error: TransferError(.http(404), "the server answered 404"))
          ))
      } else {
        done.withLock { _ = $0.insert(key) }
        tally.ok += 1
        events(.finished(Self.outcome(line, url, path, .ok)))
      }
    }
    return RunSummary(
      total: tally.ok + tally.skipped + tally.failed, succeeded: tally.ok, skipped: tally.skipped,
      failed: tally.failed, bytes: 0, seconds: 0, transport: "scripted", cancelled: false)
  }

  static func outcome(
    _ line: Int, _ url: String, _ path: String, _ status: EntryOutcome.Status,
    error: TransferError? = nil
  ) -> EntryOutcome {
    EntryOutcome(
      line: line, text: url, url: url, path: path, operation: .download, status: status,
      bytes: status == .ok ? 10 : 0, attempts: status == .skipped ? 0 : 1, seconds: 0,
      sha256: nil, error: error)
  }
}
