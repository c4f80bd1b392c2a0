import Foundation
import HaulCore
import HaulTestSupport
import Testing

@Suite("haul bench against nginx: both transports, interleaved rounds, table and JSON")
struct CLIBenchTests {
  @Test func bench_runs_each_transport_each_round_and_writes_the_comparison() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-bench")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      // Given three downloads and one upload whose body sits in the -o folder.
      var lines: [String] = []
      for index in 0..<3 {
        let size = Int64(20_000 + index * 5_000)
        let sha = try nginx.createFile("b/f\(index).bin", size: size, seed: UInt64(70 + index))
        lines.append(
          try manifestLine([
            "url": nginx.url("/b/f\(index).bin").absoluteString, "path": "d/f\(index).bin",
            "size": size, "sha256": sha,
          ]))
      }
      let out = directory.file("out")
      try FileManager.default.createDirectory(
        atPath: out + "/up", withIntermediateDirectories: true)
      let uploaded = try TestContent.writeFile(at: out + "/up/u.bin", seed: 90, count: 30_000)
      lines.append(
        try manifestLine([
          "url": nginx.url("/upload/bench/u.bin").absoluteString, "path": "up/u.bin",
          "op": "upload",
        ]))
      try writeManifest(lines, in: directory)

      // When bench runs two rounds of both transports.
      let result = try await HaulBinary.run(
        ["bench", "manifest.jsonl", "-o", "out", "--repeat", "2", "--json", "bench.json"],
        in: directory)

      // Then every run succeeded, in the order curl, urlsession, curl, urlsession.
      #expect(result.status == 0, "\(result.stderr)")
      let order = result.stderr.split(separator: "\n").filter {
        $0.contains(": 4 ok, 0 skipped, 0 failed")
      }
      .map { $0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces) }
      #expect(
        order == [
          "round 1 curl -j auto", "round 1 urlsession -j auto", "round 2 curl -j auto",
          "round 2 urlsession -j auto",
        ])
      let table = result.stdout.split(separator: "\n").map(String.init)
      #expect(table.contains { $0.hasPrefix("transport") && $0.contains("files/s") })
      #expect(table.contains { $0.hasPrefix("curl ") && $0.hasSuffix("1.00") })
      #expect(table.contains { $0.hasPrefix("urlsession ") })

      // The JSON holds each transport's runs and the ratio to the first.
      let json = try jsonFile(directory.file("bench.json"))
      #expect(json["entries"] as? Int == 4)
      #expect(json["succeeded"] as? Bool == true)
      let transports = try #require(json["transports"] as? [[String: Any]])
      #expect(transports.map { $0["name"] as? String } == ["curl", "urlsession"])
      #expect(transports.first?["ratio"] as? Double == 1)
      for transport in transports {
        let runs = try #require(transport["runs"] as? [[String: Any]])
        #expect(runs.count == 2)
        #expect(runs.allSatisfy { $0["succeeded"] as? Int == 4 && $0["failed"] as? Int == 0 })
        #expect(runs.allSatisfy { ($0["bytes"] as? Int) == 20_000 + 25_000 + 30_000 + 30_000 })
        #expect((transport["peakRSSBytes"] as? Int ?? 0) > 0)
        #expect(transport["latencyP99Seconds"] as? Double != nil)
      }

      // Four runs sent the upload four times; no run folder is left behind.
      #expect(nginx.fileDigest("upload/bench/u.bin")?.sha256 == uploaded)
      #expect(nginx.accessLog().filter { $0.method == "PUT" }.count == 4)
      #expect(nginx.accessLog().filter { $0.method == "GET" }.count == 12)
      let left = try FileManager.default.contentsOfDirectory(atPath: out)
      #expect(left == ["up"])
    }
  }

  @Test func a_concurrency_sweep_gives_a_row_per_value_and_says_what_auto_chose() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-bench")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      var lines: [String] = []
      for index in 0..<6 {
        _ = try nginx.createFile("s/f\(index).bin", size: 4_000, seed: UInt64(index))
        lines.append(
          try manifestLine(["url": nginx.url("/s/f\(index).bin").absoluteString, "size": 4_000]))
      }
      try writeManifest(lines, in: directory)

      let result = try await HaulBinary.run(
        [
          "bench", "manifest.jsonl", "-j", "2,auto", "--transports", "curl", "--repeat", "1",
          "--json", "bench.json",
        ], in: directory)

      #expect(result.status == 0, "\(result.stderr)")
      let json = try jsonFile(directory.file("bench.json"))
      #expect(json["levels"] as? [String] == ["2", "auto"])
      let rows = try #require(json["transports"] as? [[String: Any]])
      #expect(rows.map { $0["level"] as? String } == ["2", "auto"])
      #expect(rows.map { $0["name"] as? String } == ["curl", "curl"])
      // A fixed -j ends where it began; auto ends between its floor and its ceiling.
      #expect(rows[0]["concurrency"] as? Int == 2)
      let chosen = try #require(rows[1]["concurrency"] as? Int)
      #expect((4...256).contains(chosen))
      // Each run's transport is new: -j 2 opens one or two connections, auto at most one
      // per file; every run timed its first bytes.
      #expect((1...2).contains(rows[0]["connections"] as? Int ?? 0))
      #expect((1...6).contains(rows[1]["connections"] as? Int ?? 0))
      #expect(rows.allSatisfy { ($0["firstByteSeconds"] as? Double ?? 0) > 0 })
      #expect(nginx.accessLog().filter { $0.method == "GET" }.count == 12)
      let table = result.stdout.split(separator: "\n").map(String.init)
      #expect(table.contains { $0.hasPrefix("curl ") && $0.contains(" auto ") })
    }
  }

  @Test func bench_exits_1_when_a_transfer_fails() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-bench")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      try writeManifest(
        [try manifestLine(["url": nginx.url("/missing.bin").absoluteString, "path": "m.bin"])],
        in: directory)
      let result = try await HaulBinary.run(
        ["bench", "manifest.jsonl", "-o", "out", "--repeat", "1", "--transports", "curl"],
        in: directory)
      #expect(result.status == 1)
      #expect(result.stdout.contains("curl (1 failed)"))
      #expect(result.stdout.contains("curl -j auto round 1: 1 failed (first: m.bin: "))
      #expect(result.stdout.contains("http_404"))
    }
  }

  @Test(arguments: [
    (["--transports", "curl,wget"], "--transports takes curl and urlsession"),
    (["--transports", "curl,curl"], "--transports names 'curl' twice"),
    (["--repeat", "0"], "--repeat must be a whole number from 1 to 1000"),
  ])
  func bench_refuses_bad_options(extra: [String], message: String) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-bench")
    defer { directory.remove() }
    try writeManifest(["http://127.0.0.1:9/x.bin"], in: directory)
    let result = try await HaulBinary.run(["bench", "manifest.jsonl"] + extra, in: directory)
    #expect(result.status == 2)
    #expect(result.stderr.contains(message), "\(result.stderr)")
    #expect(result.stderr.hasSuffix("see 'haul bench --help'\n"))
  }
}
