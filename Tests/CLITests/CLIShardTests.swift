import Foundation
import HaulCore
import HaulTestSupport
import Testing

@Suite("haul run --shard and the open-file limit, against the fault server")
struct CLIShardTests {
  let directory: TemporaryDirectory
  let server: FaultServer

  init() throws {
    directory = try TemporaryDirectory(prefix: "haul-cli-shard")
    server = try FaultServer.started()
  }

  func cleanUp() {
    server.stop()
    directory.remove()
  }

  /// A manifest of `count` downloads from the fault server into nested folders; entry 0
  /// waits `firstWait` seconds before its answer (so a progress line gets printed), the
  /// others `eachWait` (so that transfers overlap).
  func writeDownloads(_ count: Int, firstWait: Double? = nil, eachWait: Double? = nil) throws
    -> [String]
  {
    var lines: [String] = []
    for index in 0..<count {
      let size = Int64(1000 + index)
      var options: [String: String] = [:]
      if let wait = index == 0 ? firstWait : eachWait { options["wait"] = "\(wait)" }
      lines.append(
        try manifestLine([
          "url": server.dataURL("e\(index)", size: size, seed: UInt64(index), options: options)
            .absoluteString,
          "path": "d\(index % 5)/file-\(index).bin", "size": size,
          "sha256": TestContent.sha256(seed: UInt64(index), count: size),
        ]))
    }
    try writeManifest(lines, in: directory)
    return lines
  }

  /// Runs shards 0..<4 of `manifest.jsonl` at once, as four machines would, each with its
  /// own report; returns their results in shard order.
  func runFourShards() async throws -> [HaulResult] {
    let running = try (0..<4).map { shard in
      try HaulBinary.start(
        [
          "run", "manifest.jsonl", "-o", "out", "--shard", "\(shard)/4", "-j", "4",
          "--report", "report-\(shard).json",
        ], in: directory)
    }
    var results: [HaulResult] = []
    for shard in running { results.append(try await shard.finish()) }
    return results
  }

  @Test func four_shards_together_transfer_every_entry_exactly_once() async throws {
    defer { cleanUp() }
    let count = 48
    _ = try writeDownloads(count, firstWait: 5.5)

    // When four shards run at once over the same manifest and output directory...
    let results = try await runFourShards()

    // ...each succeeds, and the server saw every entry's URL exactly once.
    for (shard, result) in results.enumerated() {
      #expect(result.status == 0, "shard \(shard): \(result.stderr)")
    }
    let requested = server.requests(pathPrefix: "/data/").map(\.path)
    #expect(requested.count == count, "\(requested.sorted())")
    #expect(Set(requested) == Set((0..<count).map { "/data/e\($0)" }))
    for index in 0..<count {
      let file = directory.file("out/d\(index % 5)/file-\(index).bin")
      let attributes = try FileManager.default.attributesOfItem(atPath: file)
      #expect(attributes[.size] as? Int == 1000 + index)
    }

    // Each report counts its own shard only; together they hold every line once.
    var lines: [Int] = []
    var shardSizes: [Int] = []
    for shard in 0..<4 {
      let report = try jsonFile(directory.file("report-\(shard).json"))
      let summary = try #require(report["summary"] as? [String: Any])
      let transfers = try #require(report["transfers"] as? [[String: Any]])
      #expect(summary["total"] as? Int == transfers.count)
      #expect(summary["succeeded"] as? Int == transfers.count)
      #expect(!transfers.isEmpty, "shard \(shard) got no entry")
      lines += transfers.compactMap { $0["line"] as? Int }
      shardSizes.append(transfers.count)
    }
    #expect(lines.sorted() == Array(1...count))

    // The progress line counts the shard's files, not the manifest's.
    var progressLines = 0
    for (shard, result) in results.enumerated() {
      for line in result.stderr.split(separator: "\n") where line.contains(" files, ") {
        progressLines += 1
        #expect(line.contains("/\(shardSizes[shard]) files"), "shard \(shard): \(line)")
      }
    }
    #expect(progressLines > 0, "no progress line: the slow entry should have shown one")

    // Run again, the same partition: everything is skipped, nothing is requested.
    let again = try await runFourShards()
    for (shard, result) in again.enumerated() {
      #expect(result.status == 0, "shard \(shard): \(result.stderr)")
      let summary = try #require(
        try jsonFile(directory.file("report-\(shard).json"))["summary"] as? [String: Any])
      #expect(summary["skipped"] as? Int == shardSizes[shard])
    }
    #expect(server.requests(pathPrefix: "/data/").count == count)
  }

  @Test func every_shard_validates_the_whole_manifest() async throws {
    defer { cleanUp() }
    var lines = try writeDownloads(12)
    lines.append(#"{"url": "ftp://example.com/x"}"#)
    try writeManifest(lines, in: directory)

    for shard in 0..<4 {
      let result = try await HaulBinary.run(
        ["run", "manifest.jsonl", "-o", "out", "--shard", "\(shard)/4"], in: directory)
      #expect(result.status == 2)
      #expect(result.stderr.hasPrefix("manifest.jsonl:13: "), "\(result.stderr)")
    }
    #expect(server.requests.isEmpty)
  }

  @Test func a_low_open_file_limit_lowers_concurrency_and_says_so() async throws {
    defer { cleanUp() }
    let count = 40
    _ = try writeDownloads(count, eachWait: 0.3)

    // A hard limit of 128 descriptors fits (128 - 64) / 6 = 10 transfers, not 512.
    let result = try await LimitedHaul.run(
      nofile: "128:128",
      ["run", "manifest.jsonl", "-o", "out", "-j", "512", "--per-host", "512", "-q"],
      in: directory)
    #expect(result.exitedNormally, "haul ended by a signal: \(result.haul.stderr)")
    #expect(result.haul.status == 0, "\(result.haul.stderr)")
    #expect(
      result.haul.stderr.contains(
        "open-file limit (128 descriptors, see 'ulimit -n') fits -j 10, not -j 512"),
      "\(result.haul.stderr)")
    #expect(!result.haul.stderr.contains("Too many open files"), "\(result.haul.stderr)")
    #expect(server.requests(pathPrefix: "/data/").count == count)
    #expect(server.maxInFlight(pathPrefix: "/data/") <= 10)  // --per-host allows 512
  }

  @Test func a_low_soft_limit_is_raised_without_a_word() async throws {
    defer { cleanUp() }
    let count = 40
    _ = try writeDownloads(count)

    // The soft limit is low, the hard one allows 512 * 6 + 64 descriptors: haul raises it.
    let result = try await LimitedHaul.run(
      nofile: "64:8192", ["run", "manifest.jsonl", "-o", "out", "-j", "512", "-q"],
      in: directory)
    #expect(result.exitedNormally, "haul ended by a signal: \(result.haul.stderr)")
    #expect(result.haul.status == 0, "\(result.haul.stderr)")
    #expect(!result.haul.stderr.contains("open-file limit"), "\(result.haul.stderr)")
    #expect(server.requests(pathPrefix: "/data/").count == count)
  }

  @Test func a_limit_too_low_for_one_transfer_is_a_clear_error() async throws {
    defer { cleanUp() }
    _ = try writeDownloads(10)

    let result = try await LimitedHaul.run(
      nofile: "40:40", ["run", "manifest.jsonl", "-o", "out", "-j", "512"], in: directory)
    #expect(result.exitedNormally, "haul ended by a signal: \(result.haul.stderr)")
    #expect(result.haul.status == 2)
    #expect(
      result.haul.stderr
        == "haul: the open-file limit (40 descriptors, see 'ulimit -n') is below the 70 haul "
        + "needs for one transfer; nothing was transferred\n")
    #expect(server.requests.isEmpty)
  }
}

/// Runs the built `haul` under `prlimit --nofile=SOFT:HARD`, as a user with a low
/// `ulimit -n` would.
enum LimitedHaul {
  struct Result {
    var haul: HaulResult
    /// False when haul ended by a signal (a crash) rather than by exiting.
    var exitedNormally: Bool
  }

  static func run(
    nofile: String, _ arguments: [String], in directory: TemporaryDirectory,
    timeout: Double = 120
  ) async throws -> Result {
    let prlimit = "/usr/bin/prlimit"
    guard FileManager.default.isExecutableFile(atPath: prlimit) else {
      throw FixtureError("prlimit is missing: install the Debian package util-linux")
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: prlimit)
    process.arguments = ["--nofile=\(nofile)", HaulBinary.path] + arguments
    process.currentDirectoryURL = directory.url
    let out = directory.file(".stdout-limited")
    let err = directory.file(".stderr-limited")
    _ = FileManager.default.createFile(atPath: out, contents: nil)
    _ = FileManager.default.createFile(atPath: err, contents: nil)
    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let haul = try await RunningHaul(process: process, stdoutPath: out, stderrPath: err)
      .finish(timeout: timeout)
    return Result(haul: haul, exitedNormally: process.waitForEnd().reason == .exit)
  }
}
