import Foundation
import HaulTestSupport
import Testing

/// SIGINT on a long manifest whose `--events` reader reads slowly: recording every entry
/// that did not finish takes as long as the reader takes to read their lines, longer than
/// the signal's deadline, and haul still writes the report and `--failed` in full before it
/// exits, because each line the reader takes is a step of the run's end (`SignalWatcher`).
@Suite("SIGINT on a long manifest with a slow --events reader")
struct InterruptedLongManifestTests {
  let directory: TemporaryDirectory
  let server: FaultServer

  init() throws {
    directory = try TemporaryDirectory(prefix: "haul-cli-long-signal")
    server = try FaultServer.started(recordsRequests: false)
  }

  func cleanUp() {
    server.stop()
    directory.remove()
  }

  /// Starts haul on one slow transfer and `waiting` entries behind it, with its events on
  /// `events`, and sends SIGINT once the slow transfer is under way.
  func startInterrupted(waiting: Int, events: Pipe) async throws -> RunningHaul {
    // One slow transfer holds the only slot (`-j 1`); the others never start.
    let slow = try dataLine(
      server, "slow", size: 10_000_000, seed: 21, options: ["drip": "100000"],
      declareDigest: false)
    let rest = try (0..<waiting).map { index in
      try manifestLine([
        "url": server.dataURL("w\(index)", size: 10, seed: 22).absoluteString,
        "path": "waiting/\(index).bin",
      ])
    }
    try writeManifest([slow] + rest, in: directory)
    let running = try HaulBinary.start(
      [
        "run", "manifest.jsonl", "-o", "out", "-j", "1", "--events", "--report", "report.json",
        "--failed", "failed.jsonl",
      ], in: directory, stdout: events)
    let partial = directory.file("out/slow.bin.haul-partial")
    // Once bytes are on disk haul handles signals.
    let started = await whenOffPool({ fileSize(partial) > 0 || !running.isRunning }, timeout: 60)
    #expect(started && running.isRunning, "the slow transfer did not start")
    running.send(SIGINT)
    return running
  }

  @Test func every_unstarted_entry_reaches_the_report_while_the_reader_reads_slowly()
    async throws
  {
    defer { cleanUp() }
    // The unstarted entries' `failed` lines (about 250 bytes each) are some 3 MB more than
    // haul's events buffer and a pipe hold (`EventOutput.capacity`), which the reader below
    // takes in about 20 s: twice the signal's deadline, however fast the machine, and only
    // longer on a loaded one.
    let waiting = 45_000
    let events = Pipe()
    let running = try await startInterrupted(waiting: waiting, events: events)
    let report = directory.file("report.json")

    // Given a reader that takes 16 KiB every 0.1 s until the report is there, then the rest
    // at once, when haul records the unfinished entries, then it writes the whole report.
    let reading = events.fileHandleForReading
    let output = try await onOwnThread {
      var data = Data()
      while !exists(report) {
        guard let chunk = try reading.read(upToCount: 16 << 10), !chunk.isEmpty else {
          return data
        }
        data.append(chunk)
        usleep(100_000)
      }
      data.append(try reading.readToEnd() ?? Data())
      return data
    }
    let result = try await running.finish(timeout: 120)
    #expect(result.status == 130, "\(result.stderr)")
    #expect(exists(report), "no report after SIGINT: \(result.stderr)")
    guard exists(report) else { return }
    let document = try jsonFile(report)
    let transfers = try #require(document["transfers"] as? [[String: Any]])
    #expect(transfers.count == waiting + 1)
    let codes = Set(transfers.map { ($0["error"] as? [String: Any])?["code"] as? String })
    #expect(codes == ["cancelled"], "\(codes)")
    let summary = try #require(document["summary"] as? [String: Any])
    #expect(summary["failed"] as? Int == waiting + 1, "\(summary)")
    let failed = try String(contentsOfFile: directory.file("failed.jsonl"), encoding: .utf8)
    #expect(failed.split(separator: "\n").count == waiting + 1)

    // And the reader has every entry's one outcome line, the summary last.
    let objects = try String(decoding: output, as: UTF8.self).split(separator: "\n").map {
      try jsonObject(String($0))
    }
    #expect(objects.last?["type"] as? String == "summary")
    var outcomes: [Int: Int] = [:]
    for object in objects.dropLast() where object["type"] as? String != "start" {
      if let line = object["line"] as? Int, object["type"] as? String != "progress" {
        outcomes[line, default: 0] += 1
      }
    }
    #expect(outcomes.count == waiting + 1)
    #expect(outcomes.values.allSatisfy { $0 == 1 })
  }

  @Test func a_second_sigint_exits_at_once_while_the_first_is_still_recording() async throws {
    defer { cleanUp() }
    let events = Pipe()
    let running = try await startInterrupted(waiting: 45_000, events: events)
    // Given the first signal's recording under way, held back by a slow reader and never
    // stuck (the watchdog would not end it), when a second SIGINT comes, then haul exits
    // with 130 there and then, before the report, which the reader is far from letting it
    // write.
    let reading = events.fileHandleForReading
    let output = try await onOwnThread {
      var data = Data()
      var sent = false
      while let chunk = try reading.read(upToCount: 16 << 10), !chunk.isEmpty {
        data.append(chunk)
        if !sent, data.count > 256 << 10 {
          running.send(SIGINT)
          sent = true
        }
        usleep(100_000)
      }
      return data
    }
    let result = try await running.finish(timeout: 120)
    #expect(result.status == 130, "\(result.stderr)")
    #expect(result.stderr.contains("haul: interrupted"), "\(result.stderr)")
    #expect(!exists(directory.file("report.json")), "read \(output.count) bytes")
  }
}
