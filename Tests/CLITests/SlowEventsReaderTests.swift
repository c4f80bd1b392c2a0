import Foundation
import HaulTestSupport
import Testing

/// A reader of `--events` that does not read for a while holds back no transfer until haul's
/// events buffer is full: the transfers go on and their report lines are spooled, and once the
/// reader reads, every line comes, each entry's in order, the summary last.
@Suite("A paused --events reader holds no transfer back")
struct SlowEventsReaderTests {
  let directory: TemporaryDirectory
  let server: FaultServer

  init() throws {
    directory = try TemporaryDirectory(prefix: "haul-slow-events")
    server = try FaultServer.started(recordsRequests: false)
  }

  func cleanUp() {
    server.stop()
    directory.remove()
  }

  @Test(arguments: transports)
  func every_transfer_ends_while_the_events_pipe_is_not_read(transport: String) async throws {
    defer { cleanUp() }
    // The `start` and `done` lines of 400 entries are several times what a pipe holds
    // (64 KiB), and far fewer bytes than the events buffer takes (`EventOutput.capacity`).
    let count = 400
    let lines = try (0..<count).map { index in
      try dataLine(server, "small\(index)", size: 1000, seed: UInt64(index))
    }
    try writeManifest(lines, in: directory)
    let spool = directory.file("report.json.spool")
    let report = directory.file("report.json")
    let events = Pipe()
    let running = try HaulBinary.start(
      runArguments(transport, ["-q"]), in: directory, stdout: events)

    // Given a reader that reads nothing, when haul runs, then every entry ends: its spool
    // fills, or the run writes the whole report.
    let ended = await whenOffPool(
      {
        spooledLines(spool) >= count || exists(report) || !running.isRunning
      }, timeout: 120, every: 0.05)
    let spooled = exists(report) ? count : spooledLines(spool)
    #expect(ended && spooled == count, "\(spooled) of \(count) entries ended unread")

    let output = try await onOwnThread { events.fileHandleForReading.readDataToEndOfFile() }
    let result = try await running.finish(timeout: 60)
    #expect(result.status == 0, "\(result.stderr)")
    let objects = try String(decoding: output, as: UTF8.self).split(separator: "\n").map {
      try jsonObject(String($0))
    }
    #expect(objects.last?["type"] as? String == "summary")
    var types: [Int: [String]] = [:]
    for object in objects.dropLast() {
      let line = try #require(object["line"] as? Int, "\(object)")
      types[line, default: []].append(try #require(object["type"] as? String))
    }
    #expect(types.count == count)
    for (line, sequence) in types {
      #expect(sequence.first == "start" && sequence.last == "done", "line \(line): \(sequence)")
      #expect(sequence.filter { $0 == "done" }.count == 1, "line \(line): \(sequence)")
    }
  }
}

/// The transfer lines in the report's spool at `path` so far.
private func spooledLines(_ path: String) -> Int {
  let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
  return text.split(separator: "\n").count
}
