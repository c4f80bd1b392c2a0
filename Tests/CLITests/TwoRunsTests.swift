import Foundation
import HaulCore
import HaulTestSupport
import Synchronization
import Testing

/// docs/behaviour.md, "Two runs, one folder": two haul processes on one output directory
/// never transfer the same file twice and never fail an entry because the other moved it;
/// an entry the other holds is waited for, and a killed process's claims go with it.
@Suite("Two runs, one folder: claims shared by haul processes")
struct TwoRunsTests {
  /// `haul run manifest.jsonl -o out` through `transport`, reporting to `report`.
  func arguments(_ transport: String, report: String, _ extra: [String] = []) -> [String] {
    ["run", "manifest.jsonl", "-o", "out", "--transport", transport, "--report", report]
      + extra
  }

  /// The status of each transfer in the report at `path`, by destination path.
  func statuses(_ path: String) throws -> [String: String] {
    let transfers = try #require(try jsonFile(path)["transfers"] as? [[String: Any]])
    var byPath: [String: String] = [:]
    for transfer in transfers {
      byPath[transfer["path"] as? String ?? ""] = transfer["status"] as? String
    }
    return byPath
  }

  @Test(arguments: transports)
  func two_runs_started_together_fetch_each_file_once_and_both_succeed(transport: String)
    async throws
  {
    let directory = try TemporaryDirectory(prefix: "haul-two-runs")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      // `/slow/` is served at 1 MB/s a connection, so the two runs overlap for seconds.
      let count = 30
      var lines: [String] = []
      var digests: [String: String] = [:]
      for index in 0..<count {
        let size: Int64 = 150_000 + Int64(index) * 1_000
        let sha = try nginx.createFile("slow/f\(index).bin", size: size, seed: UInt64(index))
        digests["f\(index).bin"] = sha
        lines.append(
          try manifestLine([
            "url": nginx.url("/slow/f\(index).bin").absoluteString, "path": "f\(index).bin",
            "size": size, "sha256": sha,
          ]))
      }
      try writeManifest(lines, in: directory)
      let first = try HaulBinary.start(
        arguments(transport, report: "a.json", ["-j", "6"]), in: directory)
      let second = try HaulBinary.start(
        arguments(transport, report: "b.json", ["-j", "6"]), in: directory)
      let one = try await first.finish(timeout: 90)
      let two = try await second.finish(timeout: 90)
      #expect(one.status == 0, "\(one.stderr)")
      #expect(two.status == 0, "\(two.stderr)")

      let a = try statuses(directory.file("a.json"))
      let b = try statuses(directory.file("b.json"))
      for (name, sha) in digests {
        #expect(FileDigest(path: directory.file("out/" + name))?.sha256 == sha, "\(name)")
        // Exactly one of the runs fetched it; the other skipped it once it was in place.
        let outcomes = [a[name], b[name]].compactMap { $0 }.sorted()
        #expect(outcomes == ["ok", "skipped"], "\(name): \(outcomes)")
      }
      let gets = nginx.accessLog(atLeast: count).filter { $0.method == "GET" }
      #expect(gets.count == count, "\(gets.map(\.uri).sorted())")
      #expect(Set(gets.map(\.uri)).count == count)
      let left = try FileManager.default.contentsOfDirectory(atPath: directory.file("out"))
      #expect(Set(left) == Set(digests.keys), "no .haul is left: \(left.sorted())")
    }
  }

  @Test(arguments: transports)
  func a_run_waits_for_the_file_another_is_fetching_then_skips_it(transport: String)
    async throws
  {
    let directory = try TemporaryDirectory(prefix: "haul-two-runs-wait")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      // Six seconds at 1 MB/s: the first run is still at it when the second starts, even
      // on a loaded machine.
      let size: Int64 = 6 << 20
      let sha = try nginx.createFile("slow/held.bin", size: size, seed: 31)
      try writeManifest(
        [
          try manifestLine([
            "url": nginx.url("/slow/held.bin").absoluteString, "path": "held.bin",
            "size": size, "sha256": sha,
          ])
        ], in: directory)
      let partial = directory.file("out/held.bin.haul-partial")
      let first = try HaulBinary.start(arguments(transport, report: "a.json"), in: directory)
      // The second run starts from the thread that saw the partial grow, not from the test
      // pool, which may come round to it only after the first run ended.
      let second = Mutex<(running: RunningHaul?, afterFirst: Bool)>((nil, false))
      let secondArguments = arguments(transport, report: "b.json")
      await whenOffPool(
        { !first.isRunning || fileSize(partial) > 0 }, timeout: 20,
        then: {
          let afterFirst = !first.isRunning
          let running = try? HaulBinary.start(secondArguments, in: directory)
          second.withLock { $0 = (running, afterFirst) }
        })
      let (started, afterFirst) = second.withLock { $0 }
      #expect(!afterFirst, "the first run ended before the second began")
      let two = try await #require(started).finish(timeout: 60)
      let one = try await first.finish(timeout: 60)
      #expect(one.status == 0, "\(one.stderr)")
      #expect(two.status == 0, "\(two.stderr)")
      #expect(try statuses(directory.file("a.json"))["held.bin"] == "ok")
      // Skipped: it found the file in place, so it waited for the first run's rename.
      #expect(try statuses(directory.file("b.json"))["held.bin"] == "skipped")
      #expect(FileDigest(path: directory.file("out/held.bin"))?.sha256 == sha)
      let gets = nginx.accessLog(atLeast: 1).filter { $0.uri == "/slow/held.bin" }
      #expect(gets.count == 1, "\(gets)")
    }
  }

  @Test(arguments: transports)
  func a_killed_runs_claim_goes_with_it_and_the_next_run_resumes(transport: String)
    async throws
  {
    let directory = try TemporaryDirectory(prefix: "haul-two-runs-kill")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      let size: Int64 = 3 << 20
      let sha = try nginx.createFile("slow/killed.bin", size: size, seed: 32)
      try writeManifest(
        [
          try manifestLine([
            "url": nginx.url("/slow/killed.bin").absoluteString, "path": "killed.bin",
            "size": size, "sha256": sha,
          ])
        ], in: directory)
      let partial = directory.file("out/killed.bin.haul-partial")
      let first = try HaulBinary.start(arguments(transport, report: "a.json"), in: directory)
      await whenOffPool(
        { !first.isRunning || fileSize(partial) > 0 }, timeout: 20,
        then: { if first.isRunning { first.send(SIGKILL) } })
      let killed = try await first.finish(timeout: 20)
      #expect(killed.status == SIGKILL, "haul ended before it was killed: \(killed.stderr)")
      let kept = fileSize(partial)
      #expect(kept > 0 && kept < size)

      let second = try await HaulBinary.run(
        arguments(transport, report: "b.json"), in: directory, timeout: 60)
      #expect(second.status == 0, "\(second.stderr)")
      #expect(try statuses(directory.file("b.json"))["killed.bin"] == "ok")
      #expect(FileDigest(path: directory.file("out/killed.bin"))?.sha256 == sha)
      let gets = nginx.accessLog(atLeast: 2).filter { $0.uri == "/slow/killed.bin" }
      #expect(gets.map(\.status) == [200, 206], "\(gets)")
    }
  }

  /// The first run on a folder ends while a second still fetches there: the first removes
  /// nothing the second needs, so the second's claim still keeps a third run from fetching
  /// its file, and the last to end leaves no `.haul`.
  @Test(arguments: transports)
  func a_run_ending_beside_another_leaves_the_others_claims_in_force(transport: String)
    async throws
  {
    let directory = try TemporaryDirectory(prefix: "haul-two-runs-end")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      // Ten seconds at 1 MB/s: the long run outlasts the short one and the third's start.
      let size: Int64 = 10 << 20
      let sha = try nginx.createFile("slow/long.bin", size: size, seed: 33)
      let quickSHA = try nginx.createFile("quick.bin", size: 20_000, seed: 34)
      try writeManifest(
        [
          try manifestLine([
            "url": nginx.url("/slow/long.bin").absoluteString, "path": "long.bin",
            "size": size, "sha256": sha,
          ])
        ], named: "long.jsonl", in: directory)
      try writeManifest(
        [
          try manifestLine([
            "url": nginx.url("/quick.bin").absoluteString, "path": "quick.bin",
            "size": 20_000, "sha256": quickSHA,
          ])
        ], named: "quick.jsonl", in: directory)
      // `--timeout 600`: the long run is stopped (SIGSTOP) while the short one runs, and
      // must not take that pause for a stalled transfer.
      func run(_ manifest: String, report: String) -> [String] {
        [
          "run", manifest, "-o", "out", "--transport", transport, "--report", report,
          "--timeout", "600",
        ]
      }
      let partial = directory.file("out/long.bin.haul-partial")
      let long = try HaulBinary.start(run("long.jsonl", report: "long.json"), in: directory)
      // The short run starts and ends while the long one holds its claim: the long one is
      // stopped as soon as its first bytes are in (from the poll's own thread: the test pool
      // may stall longer than the long run takes), so however slowly a loaded machine runs
      // the short one, the long one is still there when it ends.
      await whenOffPool(
        { !long.isRunning || fileSize(partial) > 0 }, timeout: 20, every: 0.01,
        then: { long.send(SIGSTOP) })
      let quick = try await HaulBinary.run(
        run("quick.jsonl", report: "quick.json"), in: directory, timeout: 30)
      #expect(quick.status == 0, "\(quick.stderr)")
      #expect(long.isRunning, "the long run ended before the short one did")
      #expect(
        FileManager.default.fileExists(atPath: directory.file("out/.haul/runs")),
        "the long run's presence stays")
      long.send(SIGCONT)

      // A third run on the long file waits for the long run's claim, then skips the file.
      let third = try await HaulBinary.run(
        run("long.jsonl", report: "third.json"), in: directory, timeout: 60)
      let first = try await long.finish(timeout: 60)
      #expect(first.status == 0, "\(first.stderr)")
      #expect(third.status == 0, "\(third.stderr)")
      #expect(try statuses(directory.file("long.json"))["long.bin"] == "ok")
      #expect(try statuses(directory.file("third.json"))["long.bin"] == "skipped")
      let gets = nginx.accessLog(atLeast: 2).filter { $0.uri == "/slow/long.bin" }
      #expect(gets.count == 1, "\(gets)")
      #expect(FileDigest(path: directory.file("out/long.bin"))?.sha256 == sha)
      let left = try FileManager.default.contentsOfDirectory(atPath: directory.file("out"))
      #expect(Set(left) == ["long.bin", "quick.bin"], "\(left.sorted())")
    }
  }
}
