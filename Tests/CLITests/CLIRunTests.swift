import Foundation
import HaulCore
import HaulTestSupport
import Testing

@Suite("haul run end to end, against the fault server")
struct CLIRunTests {
  let directory: TemporaryDirectory
  let server: FaultServer

  init() throws {
    directory = try TemporaryDirectory(prefix: "haul-cli-run")
    server = try FaultServer.started()
  }

  func cleanUp() {
    server.stop()
    directory.remove()
  }

  @Test func a_bad_manifest_line_stops_the_run_before_any_request() async throws {
    defer { cleanUp() }
    let good = try manifestLine([
      "url": server.dataURL("a", size: 10, seed: 1).absoluteString, "path": "a.bin",
    ])
    let lines = [good, "", #"{"url": "ftp://example.com/x"}"#]
    try writeManifest(lines, in: directory)

    let result = try await HaulBinary.run(
      ["run", "manifest.jsonl", "-o", "out"], in: directory)
    #expect(result.status == 2)
    #expect(result.stderr.hasPrefix("manifest.jsonl:3: "), "\(result.stderr)")

    let piped = try await HaulBinary.run(
      ["run", "-", "-o", "out"], in: directory, stdin: lines.joined(separator: "\n"))
    #expect(piped.status == 2)
    #expect(piped.stderr.hasPrefix("-:3: "), "\(piped.stderr)")

    #expect(server.requests.isEmpty)
    #expect(!FileManager.default.fileExists(atPath: directory.file("out/a.bin")))
  }

  @Test func a_manifest_line_that_turns_bad_during_the_run_stops_it_loudly() async throws {
    defer { cleanUp() }
    let lines = try ["a", "b", "c"].enumerated().map { index, name in
      try manifestLine([
        "url": server.dataURL(name, size: 1000, seed: UInt64(index + 1)).absoluteString,
        "path": "\(name).bin",
      ])
    }
    try writeManifest(lines, in: directory)
    // The credential command runs after the manifest was checked and before the run reads
    // it again: it breaks line 2, as an edit of the file during the run would.
    let command = #"sed -i '2s/.*/{"url": 5}/' manifest.jsonl && echo token"#

    let result = try await HaulBinary.run(
      ["run", "manifest.jsonl", "-o", "out", "--report", "report.json", "--auth-command", command],
      in: directory)

    #expect(result.status == 2, "\(result.stderr)")
    #expect(result.stderr.contains("manifest.jsonl:2: "), "\(result.stderr)")
    #expect(result.stderr.contains("did not run"), "\(result.stderr)")
    // The line before it ran and is reported; none from it on was sent.
    let run = try FaultRun(result, reportIn: directory)
    #expect(run.status(1) == "ok", "\(run.describe(1))")
    #expect(run.transfers.keys.sorted() == [1])
    #expect(server.requests.map(\.path) == ["/data/a"])
    #expect(holdsContent(directory.file("out/a.bin"), seed: 1, size: 1000))
  }

  @Test(arguments: transports)
  func failures_retries_report_events_and_failed_file(transport: String) async throws {
    defer { cleanUp() }
    let okURL = server.dataURL("ok", size: 100_000, seed: 1).absoluteString
      .replacingOccurrences(of: "http://", with: "http://user:s3cret@")
    let lines = [
      try manifestLine([
        "url": okURL, "path": "ok.bin", "size": 100_000,
        "sha256": TestContent.sha256(seed: 1, count: 100_000),
      ]),
      try manifestLine([
        "url": server.url("/missing/thing.bin").absoluteString, "path": "missing.bin",
      ]),
      try manifestLine([
        "url": server.dataURL(
          "flaky", size: 50_000, seed: 3, options: ["status": "503", "times": "2"]
        )
        .absoluteString,
        "path": "flaky.bin", "sha256": TestContent.sha256(seed: 3, count: 50_000),
      ]),
      try manifestLine([
        "url": server.dataURL("short", size: 1000, seed: 4).absoluteString, "path": "short.bin",
        "size": 2000,
      ]),
      try manifestLine([
        "url": server.dataURL("bad", size: 1000, seed: 5).absoluteString, "path": "bad.bin",
        "sha256": TestContent.sha256(seed: 6, count: 1000),
      ]),
      "# a comment",
      server.dataURL("bare", size: 10, seed: 7).absoluteString,
    ]
    try writeManifest(lines, in: directory)

    let result = try await HaulBinary.run(
      [
        "run", "manifest.jsonl", "-o", "out", "--report", "report.json", "--events", "--failed",
        "failed.txt", "--transport", transport, "--header", "X-Secret: hunter2",
      ], in: directory)
    #expect(result.status == 1, "\(result.stderr)")

    // The report: summary counts and each transfer's status, code and attempts.
    let report = try jsonFile(directory.file("report.json"))
    let summary = try #require(report["summary"] as? [String: Any])
    #expect(summary["total"] as? Int == 6)
    #expect(summary["succeeded"] as? Int == 3)
    #expect(summary["skipped"] as? Int == 0)
    #expect(summary["failed"] as? Int == 3)
    #expect(summary["transport"] as? String == transport)
    #expect(summary["bytes"] as? Int ?? 0 >= 150_010)
    #expect(summary["seconds"] as? Double != nil)
    let transfers = try #require(report["transfers"] as? [[String: Any]])
    var byLine: [Int: [String: Any]] = [:]
    for transfer in transfers { byLine[transfer["line"] as? Int ?? 0] = transfer }
    #expect(Set(byLine.keys) == [1, 2, 3, 4, 5, 7])
    #expect(byLine[1]?["status"] as? String == "ok")
    #expect(byLine[1]?["sha256"] as? String == TestContent.sha256(seed: 1, count: 100_000))
    #expect(
      byLine[1]?["url"] as? String == server.dataURL("ok", size: 100_000, seed: 1).absoluteString)
    #expect(byLine[1]?["bytes"] as? Int == 100_000)
    #expect(byLine[2]?["status"] as? String == "failed")
    #expect(code(byLine[2]) == "http_404")
    #expect(byLine[2]?["attempts"] as? Int == 1)
    #expect(byLine[3]?["status"] as? String == "ok")
    #expect(byLine[3]?["attempts"] as? Int == 3)
    #expect(code(byLine[4]) == "size_mismatch")
    #expect(code(byLine[5]) == "checksum_mismatch")
    #expect(byLine[7]?["path"] as? String == "bare")
    for transfer in transfers {
      for key in ["line", "url", "path", "op", "status", "bytes", "attempts", "seconds"] {
        #expect(transfer[key] != nil, "transfer lacks \(key)")
      }
      #expect((transfer["error"] != nil) == (transfer["status"] as? String == "failed"))
    }

    // Files: the good ones in place, nothing at a failed entry's path.
    let out = directory.file("out")
    #expect(FileManager.default.fileExists(atPath: out + "/ok.bin"))
    #expect(FileManager.default.fileExists(atPath: out + "/flaky.bin"))
    for path in ["missing.bin", "short.bin", "bad.bin"] {
      #expect(!FileManager.default.fileExists(atPath: out + "/" + path), "\(path) exists")
    }

    // --failed: the failed lines verbatim, in manifest order.
    #expect(
      try String(contentsOfFile: directory.file("failed.txt"), encoding: .utf8)
        == [lines[1], lines[3], lines[4]].map { $0 + "\n" }.joined())

    // Events: one start per entry, one end per entry, retries for the flaky one, summary last.
    let events = try result.events()
    #expect(events.last?["type"] as? String == "summary")
    #expect(events.last?["failed"] as? Int == 3)
    let ends = events.filter { ["done", "skipped", "failed"].contains($0["type"] as? String) }
    #expect(ends.compactMap { $0["line"] as? Int }.sorted() == [1, 2, 3, 4, 5, 7])
    let starts = events.filter { $0["type"] as? String == "start" }
    #expect(starts.compactMap { $0["line"] as? Int }.sorted() == [1, 2, 3, 4, 5, 7])
    let retries = events.filter { $0["type"] as? String == "retry" }
    #expect(retries.compactMap { $0["attempt"] as? Int } == [2, 3])
    #expect(retries.allSatisfy { $0["line"] as? Int == 3 && $0["code"] as? String == "http_503" })
    #expect(retries.allSatisfy { ($0["delay"] as? Double).map { $0 >= 0 } == true })
    #expect(events.allSatisfy { $0["path"] != nil || $0["type"] as? String == "summary" })

    // Secrets appear nowhere; the header did reach the server.
    let reportText = try String(contentsOfFile: directory.file("report.json"), encoding: .utf8)
    for text in [result.stdout, result.stderr, reportText] {
      #expect(!text.contains("s3cret"))
      #expect(!text.contains("hunter2"))
    }
    #expect(server.requests(pathPrefix: "/data/ok").first?.value(for: "X-Secret") == "hunter2")
    #expect(result.stderr.contains("haul: 3 ok, 0 skipped, 3 failed"))
  }

  @Test func a_manifest_on_standard_input_runs() async throws {
    defer { cleanUp() }
    let manifest = server.dataURL("piped", size: 5000, seed: 11).absoluteString + "\n"
    let result = try await HaulBinary.run(
      ["run", "-", "-o", "out", "--events"], in: directory, stdin: manifest)
    #expect(result.status == 0, "\(result.stderr)")
    let data = try Data(contentsOf: URL(fileURLWithPath: directory.file("out/piped")))
    #expect(SHA256.hex(of: data) == TestContent.sha256(seed: 11, count: 5000))
    #expect(try result.events().last?["succeeded"] as? Int == 1)
  }

  @Test(arguments: transports)
  func a_rerun_skips_everything_without_a_request(transport: String) async throws {
    defer { cleanUp() }
    let lines = try (0..<5).map { index in
      try manifestLine([
        "url": server.dataURL("f\(index)", size: 20_000, seed: UInt64(index)).absoluteString,
        "path": "dir/f\(index).bin", "size": 20_000,
        "sha256": TestContent.sha256(seed: UInt64(index), count: 20_000),
      ])
    }
    try writeManifest(lines, in: directory)
    let arguments = ["run", "manifest.jsonl", "-o", "out", "--transport", transport, "-q"]
    let first = try await HaulBinary.run(arguments, in: directory)
    #expect(first.status == 0, "\(first.stderr)")
    let requestsAfterFirst = server.requests.count
    #expect(requestsAfterFirst >= 5)

    let second = try await HaulBinary.run(
      arguments + ["--report", "report.json"], in: directory)
    #expect(second.status == 0, "\(second.stderr)")
    #expect(server.requests.count == requestsAfterFirst)
    let summary = try #require(
      try jsonFile(directory.file("report.json"))["summary"] as? [String: Any])
    #expect(summary["skipped"] as? Int == 5)
    #expect(summary["bytes"] as? Int == 0)
    #expect(second.stderr.contains("haul: 0 ok, 5 skipped, 0 failed"))
  }

  @Test(arguments: transports)
  func concurrency_and_per_host_limits_are_never_exceeded(transport: String) async throws {
    defer { cleanUp() }
    let lines = try (0..<10).map { index in
      try manifestLine([
        "url": server.dataURL("slow\(index)", size: 1000, seed: 9, options: ["wait": "0.3"])
          .absoluteString,
        "path": "slow\(index).bin",
      ])
    }
    try writeManifest(lines, in: directory)
    let global = try await HaulBinary.run(
      ["run", "manifest.jsonl", "-o", "a", "-j3", "--transport", transport, "-q"], in: directory)
    #expect(global.status == 0, "\(global.stderr)")
    #expect(server.maxInFlight(pathPrefix: "/data/") <= 3)
    #expect(server.maxInFlight(pathPrefix: "/data/") >= 2)

    let before = server.requests.count
    let perHost = try await HaulBinary.run(
      [
        "run", "manifest.jsonl", "-o", "b", "-j", "8", "--per-host=2", "--transport", transport,
        "-q",
      ],
      in: directory)
    #expect(perHost.status == 0, "\(perHost.stderr)")
    #expect(server.requests.count > before)
    #expect(server.maxInFlight(pathPrefix: "/data/") <= 3)
    let secondRun = Array(server.requests.dropFirst(before))
    #expect(RequestRecord.maxInFlight(secondRun) <= 2)
  }

  @Test(arguments: transports, [SIGINT, SIGTERM])
  func a_signal_exits_130_writes_the_report_and_a_rerun_completes(
    transport: String, signal: Int32
  ) async throws {
    defer { cleanUp() }
    let lines = try (0..<3).map { index in
      try manifestLine([
        "url": server.dataURL("big\(index)", size: 1_000_000, seed: 20, options: ["drip": "40000"])
          .absoluteString,
        "path": "big\(index).bin", "sha256": TestContent.sha256(seed: 20, count: 1_000_000),
      ])
    }
    try writeManifest(lines, in: directory)
    let running = try HaulBinary.start(
      [
        "run", "manifest.jsonl", "-o", "out", "--report", "report.json", "--failed", "failed.txt",
        "--transport", transport,
      ], in: directory)
    // Interrupt once every transfer has bytes on disk (haul handles signals by then; the
    // sink writes a body 256 KiB at a time, so that takes about 7 s of this drip). The run
    // lasts 25 s; the wait, the signal and the exit are watched off the test pool
    // (`RunningHaul.interrupt`), which the rest of the CLI suite can keep busy for longer.
    let directory = directory
    let signalled = try await running.interrupt(signal) {
      (0..<3).allSatisfy { fileSize(directory.file("out/big\($0).bin.haul-partial")) > 0 }
    }
    #expect(signalled.ready, "not every transfer had bytes on disk before the signal")
    let started = signalled.sent
    let result = signalled.result
    #expect(result.status == 130, "\(result.stderr)")
    #expect(result.ended.timeIntervalSince(started) < 10)
    let report = try jsonFile(directory.file("report.json"))
    #expect((report["summary"] as? [String: Any])?["cancelled"] as? Bool == true)
    let transfers = try #require(report["transfers"] as? [[String: Any]])
    #expect(transfers.count == 3)
    #expect(transfers.allSatisfy { code($0) == "cancelled" })
    #expect(
      try String(contentsOfFile: directory.file("failed.txt"), encoding: .utf8)
        == lines.map { $0 + "\n" }.joined())
    #expect(result.stderr.contains("interrupted"))

    let rerun = try await HaulBinary.run(
      ["run", "failed.txt", "-o", "out", "--transport", transport, "-q"], in: directory)
    #expect(rerun.status == 0, "\(rerun.stderr)")
    #expect(server.requests.contains { $0.value(for: "Range") != nil })
    for index in 0..<3 {
      let data = try Data(contentsOf: URL(fileURLWithPath: directory.file("out/big\(index).bin")))
      #expect(SHA256.hex(of: data) == TestContent.sha256(seed: 20, count: 1_000_000))
    }
  }

  /// After a signal every entry that never started is recorded too (in batches): the report
  /// and `--failed` of a long manifest must be complete before the exit deadline.
  @Test func a_signal_records_every_unstarted_entry_of_a_long_manifest() async throws {
    defer { cleanUp() }
    // The slow entry holds the only slot for far longer than the test runs (100 s).
    let slow = server.dataURL("slow", size: 10_000_000, seed: 21, options: ["drip": "100000"])
    let waiting = 20_000
    var lines = try [manifestLine(["url": slow.absoluteString, "path": "slow.bin"])]
    let pending = server.dataURL("never", size: 10, seed: 22).absoluteString
    for index in 0..<waiting {
      lines.append("{\"url\":\"\(pending)\",\"path\":\"wait/\(index).bin\"}")
    }
    try writeManifest(lines, in: directory)
    let running = try HaulBinary.start(
      [
        "run", "manifest.jsonl", "-o", "out", "-j", "1", "--report", "report.json", "--failed",
        "failed.txt", "-q",
      ], in: directory)
    let partial = directory.file("out/slow.bin.haul-partial")
    await whenOffPool(
      { FileManager.default.fileExists(atPath: partial) }, timeout: 30, every: 0.05,
      then: { running.send(SIGINT) })
    let result = try await running.finish(timeout: 30)
    #expect(result.status == 130, "\(result.stderr)")
    let report = try jsonFile(directory.file("report.json"))
    let transfers = try #require(report["transfers"] as? [[String: Any]])
    // Every entry is reported exactly once. On a loaded machine the slow entry may fail
    // once and free its slot during the back-off, letting a few others finish first; every
    // entry that did not finish is cancelled, and `--failed` holds exactly those lines.
    #expect(transfers.count == waiting + 1)
    #expect(Set(transfers.compactMap { $0["line"] as? Int }) == Set(1...(waiting + 1)))
    let unfinished = transfers.filter { $0["status"] as? String != "ok" }
    #expect(unfinished.allSatisfy { code($0) == "cancelled" })
    #expect(unfinished.count > waiting / 2)
    let failedLines = unfinished.compactMap { $0["line"] as? Int }.sorted()
    #expect(
      try String(contentsOfFile: directory.file("failed.txt"), encoding: .utf8)
        == failedLines.map { lines[$0 - 1] + "\n" }.joined())
  }

  private func code(_ transfer: [String: Any]?) -> String? {
    (transfer?["error"] as? [String: Any])?["code"] as? String
  }

}
