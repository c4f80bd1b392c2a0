import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// A run killed with SIGKILL leaves its report's spool, `REPORT.spool`, beside the report:
/// JSON Lines, one transfer object per entry that ended before the process died.
@Suite("The report survives kill -9: its spool holds every entry that ended")
struct ReportSpoolTests {
  let directory: TemporaryDirectory
  let server: FaultServer

  init() throws {
    directory = try TemporaryDirectory(prefix: "haul-spool")
    server = try FaultServer.started()
  }

  func cleanUp() {
    server.stop()
    directory.remove()
  }

  @Test(arguments: transports)
  func a_killed_run_leaves_a_spool_with_every_entry_it_finished(transport: String) async throws {
    defer { cleanUp() }
    var lines = try (0..<10).map { index in
      try dataLine(server, "quick\(index)", size: 1000, seed: UInt64(200 + index))
    }
    // The last entry stalls for a minute on the first attempt, so the run is still going
    // when it is killed; on the rerun it comes at once.
    lines.append(
      try dataLine(
        server, "slow", size: 100_000, seed: 210,
        options: ["stall": "10", "stallSeconds": "60", "times": "1"]))
    try writeManifest(lines, in: directory)
    let spool = directory.file("report.json.spool")

    let running = try HaulBinary.start(
      runArguments(transport, ["--timeout", "120"]), in: directory)
    let stdout = running.stdoutPath
    let quickDone = await whenOffPool(
      { doneLines(in: stdout).count >= 10 || !running.isRunning }, timeout: 60,
      then: { if running.isRunning { running.send(SIGKILL) } })
    let result = try await running.finish(timeout: 20)

    #expect(quickDone)
    #expect(result.status == SIGKILL, "haul ended before it was killed: \(result.stderr)")
    #expect(!exists(directory.file("report.json")))
    let text = try String(contentsOfFile: spool, encoding: .utf8)
    let entries = try text.split(separator: "\n").map { try jsonObject(String($0)) }
    let byLine = Dictionary(entries.map { ($0["line"] as? Int ?? 0, $0) }) { first, _ in first }
    #expect(entries.count == byLine.count, "an entry was spooled twice: \(text)")
    // Every entry whose `done` event was printed is in the spool, as the report holds it.
    for line in doneLines(in: stdout) {
      #expect(byLine[line]?["status"] as? String == "ok", "line \(line): \(text)")
      #expect(byLine[line]?["path"] as? String == "quick\(line - 1).bin")
    }
    #expect(Set(byLine.keys) == Set(1...10), "\(text)")

    // A rerun on the same report writes a whole report and removes the spool.
    let rerun = try FaultRun(
      try await HaulBinary.run(runArguments(transport), in: directory), reportIn: directory)
    #expect(rerun.result.status == 0, "\(rerun.result.stderr)")
    #expect(rerun.transfers.count == 11)
    #expect(rerun.status(11) == "ok", "\(rerun.describe(11))")
    #expect(!exists(spool))
  }
}

/// The lines of the `done` events printed so far to the events file at `path`.
private func doneLines(in path: String) -> [Int] {
  let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
  return text.split(separator: "\n").compactMap { line in
    guard let object = try? jsonObject(String(line)), object["type"] as? String == "done"
    else { return nil }
    return object["line"] as? Int
  }
}
