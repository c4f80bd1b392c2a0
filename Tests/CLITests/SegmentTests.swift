import Foundation
import HaulCore
import HaulTestSupport
import Synchronization
import Testing

@Suite("--segments: one download as parallel ranges, through the built binary")
struct SegmentTests {
  let directory: TemporaryDirectory
  let server: FaultServer

  init() throws {
    directory = try TemporaryDirectory(prefix: "haul-cli-segments")
    server = try FaultServer.started()
  }

  func cleanUp() {
    server.stop()
    directory.remove()
  }

  @Test(arguments: transports)
  func four_segments_are_one_probe_and_four_ranges_and_exact_bytes(transport: String) async throws {
    defer { cleanUp() }
    let size: Int64 = 64 << 20
    let url = server.dataURL("big", size: size, seed: 61)
    let sha = await Self.sha256(seed: 61, count: size)
    try writeManifest(
      [
        try manifestLine([
          "url": url.absoluteString, "path": "big.bin", "size": size, "sha256": sha,
        ])
      ],
      in: directory)

    let result = try await HaulBinary.run(
      [
        "run", "manifest.jsonl", "-o", "out", "--segments", "4", "--transport", transport, "-q",
        "--report", "report.json",
      ], in: directory)

    #expect(result.status == 0, "\(result.stderr)")
    #expect(await Self.digest(directory.file("out/big.bin")) == sha)
    let records = server.requests(pathPrefix: "/data/big")
    #expect(records.count == 5, "\(records.map { $0.value(for: "Range") ?? "-" })")
    #expect(records.filter { $0.value(for: "Range") == "bytes=0-0" }.count == 1)
    let quarter = size / 4
    let expected = (0..<4).map { "bytes=\(Int64($0) * quarter)-\(Int64($0 + 1) * quarter - 1)" }
    let ranged = records.filter { $0.value(for: "Range") != "bytes=0-0" }
    #expect(ranged.compactMap { $0.value(for: "Range") }.sorted() == expected.sorted())
    #expect(ranged.allSatisfy { $0.value(for: "If-Range") == Self.etag(seed: 61, size: size) })
    #expect(server.maxInFlight(pathPrefix: "/data/big") >= 2)
    let transfer = try #require(
      (try jsonFile(directory.file("report.json"))["transfers"] as? [[String: Any]])?.first)
    #expect(transfer["sha256"] as? String == sha)
    #expect(transfer["attempts"] as? Int == 1)
    #expect(transfer["bytes"] as? Int == Int(size))
  }

  @Test(arguments: transports)
  func a_killed_download_resumes_each_segment_where_it_stopped(transport: String) async throws {
    defer { cleanUp() }
    let size: Int64 = 8 << 20
    // The probe and the four segments of the first run (the first five requests) each get
    // `stallBytes` and then nothing for 120 s (longer than a loaded machine can delay the
    // kill); later requests are served at full speed.
    let url = server.dataURL(
      "slow", size: size, seed: 62,
      options: ["stall": "\(Self.stallBytes)", "stallSeconds": "120", "times": "5"])
    let sha = await Self.sha256(seed: 62, count: size)
    try writeManifest(
      [
        try manifestLine([
          "url": url.absoluteString, "path": "slow.bin", "size": size, "sha256": sha,
        ])
      ],
      in: directory)
    let arguments = [
      "run", "manifest.jsonl", "-o", "out", "--segments", "4", "--min-segment-size", "1M",
      "--transport", transport, "-q", "--timeout", "120",
    ]

    // Given a run killed once every segment has saved its 300,000 bytes,
    let running = try HaulBinary.start(arguments, in: directory)
    let statePath = directory.file("out/slow.bin.haul-state")
    let killedMidWay = await Self.killWhenEverySegmentSaved(running, statePath: statePath)
    let killed = try await running.finish(timeout: 10)
    #expect(killedMidWay, "haul ended before it could be killed mid-way: \(killed.stderr)")
    let saved = try #require(Self.savedSegments(statePath))
    #expect(saved.count == 4)
    #expect(saved.allSatisfy { $0.next == $0.start + Self.stallBytes })
    let before = server.requests.count

    // when it runs again,
    let rerun = try await HaulBinary.run(arguments, in: directory)

    // then it asks for exactly what each segment lacks, guarded by the validator, and no probe.
    #expect(rerun.status == 0, "\(rerun.stderr)")
    #expect(await Self.digest(directory.file("out/slow.bin")) == sha)
    let again = server.requests.dropFirst(before)
    #expect(!again.contains { $0.value(for: "Range") == "bytes=0-0" })
    let wanted = saved.filter { !$0.isComplete }.map { "bytes=\($0.next)-\($0.end)" }
    #expect(again.compactMap { $0.value(for: "Range") }.sorted() == wanted.sorted())
    #expect(again.allSatisfy { $0.value(for: "If-Range") == Self.etag(seed: 62, size: size) })
    #expect(!FileManager.default.fileExists(atPath: statePath))
  }

  @Test(arguments: transports)
  func a_file_that_changes_mid_way_restarts_and_ends_with_the_new_bytes(transport: String)
    async throws
  {
    defer { cleanUp() }
    let size: Int64 = 16 << 20
    // From the fourth request on (the probe and two segments saw the first version), the
    // server has a new version: If-Range no longer matches and the answer is a whole 200.
    let url = server.dataURL("moving", size: size, seed: 63, options: ["changeAfter": "3"])
    let newSeed = FaultServer.changingSeed(63, hit: 1)
    let sha = await Self.sha256(seed: newSeed, count: size)
    try writeManifest(
      [try manifestLine(["url": url.absoluteString, "path": "moving.bin", "sha256": sha])],
      in: directory)

    let result = try await HaulBinary.run(
      [
        "run", "manifest.jsonl", "-o", "out", "--segments", "4", "--min-segment-size", "1M",
        "--transport", transport, "-q", "--report", "report.json",
      ], in: directory)

    #expect(result.status == 0, "\(result.stderr)")
    #expect(await Self.digest(directory.file("out/moving.bin")) == sha)
    let records = server.requests(pathPrefix: "/data/moving")
    #expect(records.filter { $0.value(for: "Range") == "bytes=0-0" }.count == 2)
    #expect(records.contains { $0.status == 200 })
    let newTag = Self.etag(seed: newSeed, size: size)
    // The second round asks for the four ranges of the new version. (A request of the
    // first round may reach the server late, so requests are told apart by validator.)
    let restart = records.filter { $0.value(for: "If-Range") == newTag }
    #expect(
      restart.count == 4, "\(records.map { ($0.value(for: "Range") ?? "-", $0.status ?? 0) })")
    #expect(restart.allSatisfy { $0.status == 206 })
    let transfer = try #require(
      (try jsonFile(directory.file("report.json"))["transfers"] as? [[String: Any]])?.first)
    #expect(transfer["attempts"] as? Int == 1)
  }

  @Test(arguments: transports)
  func a_server_without_ranges_gets_one_stream(transport: String) async throws {
    defer { cleanUp() }
    let size: Int64 = 16 << 20
    let url = server.dataURL("whole", size: size, seed: 64, options: ["ignoreRange": "1"])
    let sha = await Self.sha256(seed: 64, count: size)
    try writeManifest(
      [
        try manifestLine([
          "url": url.absoluteString, "path": "whole.bin", "size": size, "sha256": sha,
        ])
      ],
      in: directory)

    let result = try await HaulBinary.run(
      [
        "run", "manifest.jsonl", "-o", "out", "--segments", "4", "--min-segment-size", "1M",
        "--transport", transport, "-q",
      ], in: directory)

    #expect(result.status == 0, "\(result.stderr)")
    #expect(await Self.digest(directory.file("out/whole.bin")) == sha)
    let records = server.requests(pathPrefix: "/data/whole")
    // The probe learns there are no ranges; one plain GET follows.
    #expect(records.count == 2)
    #expect(records.first?.value(for: "Range") == "bytes=0-0")
    #expect(records.last?.value(for: "Range") == nil)
  }

  @Test(arguments: transports)
  func small_files_stay_whole(transport: String) async throws {
    defer { cleanUp() }
    let size: Int64 = 4 << 20
    let known = server.dataURL("known", size: size, seed: 65)
    let unknown = server.dataURL("unknown", size: size, seed: 66)
    try writeManifest(
      [
        try manifestLine(["url": known.absoluteString, "path": "known.bin", "size": size]),
        try manifestLine(["url": unknown.absoluteString, "path": "unknown.bin"]),
      ], in: directory)

    let result = try await HaulBinary.run(
      ["run", "manifest.jsonl", "-o", "out", "--segments", "4", "--transport", transport, "-q"],
      in: directory)

    #expect(result.status == 0, "\(result.stderr)")
    // A size under --min-segment-size (8M by default) known from the manifest: one GET.
    let knownRecords = server.requests(pathPrefix: "/data/known")
    #expect(knownRecords.count == 1)
    #expect(knownRecords.first?.value(for: "Range") == nil)
    // An unknown size is learnt by the probe, which finds it too small: one GET follows.
    let unknownRecords = server.requests(pathPrefix: "/data/unknown")
    #expect(unknownRecords.map { $0.value(for: "Range") } == ["bytes=0-0", nil])
    #expect(
      FileDigest(path: directory.file("out/unknown.bin"))?.sha256
        == TestContent.sha256(seed: 66, count: size))
  }

  @Test(arguments: transports)
  func segments_count_against_the_concurrency_limits(transport: String) async throws {
    defer { cleanUp() }
    let size: Int64 = 4 << 20
    var lines: [String] = []
    for index in 0..<3 {
      let url = server.dataURL(
        "limited\(index)", size: size, seed: UInt64(70 + index), options: ["drip": "8000000"])
      lines.append(
        try manifestLine([
          "url": url.absoluteString, "path": "limited\(index).bin", "size": size,
          "sha256": TestContent.sha256(seed: UInt64(70 + index), count: size),
        ]))
    }
    try writeManifest(lines, in: directory)
    // One loop: the server counts a request in flight until its thread is done with it, a
    // little after the client has the last byte; one loop sends the next segment on the
    // same kept-alive connection, after that, where another loop's new connection could be
    // counted beside it.
    let common = [
      "run", "manifest.jsonl", "--segments", "4", "--min-segment-size", "1M", "--transport",
      transport, "-q", "--loops", "1",
    ]

    let global = try await HaulBinary.run(common + ["-o", "a", "-j", "3"], in: directory)
    #expect(global.status == 0, "\(global.stderr)")
    #expect(server.maxInFlight(pathPrefix: "/data/limited") <= 3)
    #expect(server.maxInFlight(pathPrefix: "/data/limited") >= 2)

    let before = server.requests.count
    let perHost = try await HaulBinary.run(
      common + ["-o", "b", "-j", "16", "--per-host", "2"], in: directory)
    #expect(perHost.status == 0, "\(perHost.stderr)")
    let second = Array(server.requests.dropFirst(before))
    #expect(second.count == 15)
    #expect(RequestRecord.maxInFlight(second) <= 2)
    for index in 0..<3 {
      #expect(
        FileDigest(path: directory.file("b/limited\(index).bin"))?.sha256
          == TestContent.sha256(seed: UInt64(70 + index), count: size))
    }
  }

  // MARK: Helpers

  /// `TestContent.sha256` on a thread of its own: hashing tens of MiB on the test runner's
  /// few cooperative threads would stall the polling of other tests running in parallel.
  static func sha256(seed: UInt64, count: Int64) async -> String {
    await onThread { TestContent.sha256(seed: seed, count: count) }
  }

  /// The SHA-256 of the file at `path`, if it exists, on a thread of its own.
  static func digest(_ path: String) async -> String? {
    await onThread { FileDigest(path: path)?.sha256 }
  }

  static func onThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
      Thread { continuation.resume(returning: work()) }.start()
    }
  }

  /// The `ETag` the fault server sends for content `seed` of `size` bytes.
  static func etag(seed: UInt64, size: Int64) -> String {
    "\"\(String(seed, radix: 16))-\(size)\""
  }

  /// Where a stalled segment of these tests stops: whole writes of the segment's sink
  /// (`DownloadSink.writeSize`), so every byte the server sent is on disk and in the state.
  static let stallBytes = 2 * Int64(DownloadSink.writeSize)

  /// SIGKILLs `running` once the state file at `statePath` records four segments that each
  /// saved `stallBytes` (or after 60 s), watched from a thread of its own; returns whether
  /// haul was still running when killed.
  @discardableResult
  static func killWhenEverySegmentSaved(_ running: RunningHaul, statePath: String) async -> Bool {
    let alive = Mutex(false)
    await whenOffPool(
      {
        guard running.isRunning else { return true }
        guard let segments = savedSegments(statePath), segments.count == 4 else { return false }
        return segments.allSatisfy { $0.next == $0.start + stallBytes }
      }, timeout: 60, every: 0.02,
      then: {
        alive.withLock { $0 = running.isRunning }
        running.send(SIGKILL)
      })
    return alive.withLock { $0 }
  }

  /// The segments recorded in the resume state at `path`, if it holds any.
  static func savedSegments(_ path: String) -> [SegmentProgress]? {
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    return ResumeState.decode(Array(data))?.segments
  }

}
