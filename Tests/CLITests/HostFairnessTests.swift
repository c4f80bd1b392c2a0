import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// A slow host must not hold back the others: the run reads far enough ahead in the manifest
/// that one host's waiting entries leave the other hosts their slots.
@Suite("Fair to hosts: a slow host's long queue does not hold back a fast host")
struct HostFairnessTests {
  let directory: TemporaryDirectory
  let slow: FaultServer
  let fast: FaultServer

  init() throws {
    directory = try TemporaryDirectory(prefix: "haul-cli-fair")
    slow = try FaultServer.started()
    fast = try FaultServer.started()
  }

  func cleanUp() {
    slow.stop()
    fast.stop()
    directory.remove()
  }

  @Test(arguments: transports)
  func a_fast_host_listed_after_a_slow_one_runs_while_the_slow_one_waits(transport: String)
    async throws
  {
    defer { cleanUp() }
    // Given 1,000 entries for a host that answers after 120 s (longer than the quick host's
    // entries take on a loaded machine), then 1,000 for a quick one.
    var lines: [String] = []
    for index in 0..<1000 {
      lines.append(
        try dataLine(
          slow, "slow\(index)", size: 100, seed: UInt64(index), options: ["wait": "120"],
          path: "slow/\(index).bin"))
    }
    for index in 0..<1000 {
      lines.append(
        try dataLine(
          fast, "fast\(index)", size: 1000, seed: UInt64(5000 + index),
          path: "fast/\(index).bin"))
    }
    try writeManifest(lines, in: directory)

    // When haul runs with 4 slots per host, and a stall timeout longer than the test waits
    // (the default 30 s would retry the silent requests while a loaded machine is still
    // fetching the quick files, and each retry is one more request to the slow host)...
    let running = try HaulBinary.start(
      runArguments(transport, ["-j", "16", "--per-host", "4", "--timeout", "300", "-q"])
        .filter { $0 != "--events" },
      in: directory)
    // Interrupted once all quick files are in place.
    let folder = directory.file("out/fast")
    await whenOffPool(
      {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return !running.isRunning || names.filter { $0.hasSuffix(".bin") }.count >= 1000
      }, timeout: 100, every: 0.1)
    running.send(SIGINT)
    let result = try await running.finish(timeout: 30)

    // Then every quick entry finished while the slow host's first four still waited.
    #expect(result.status == 130, "\(result.stderr)")
    let transfers = try #require(
      try jsonFile(directory.file("report.json"))["transfers"] as? [[String: Any]])
    let fastDone = transfers.filter {
      ($0["path"] as? String)?.hasPrefix("fast/") == true && $0["status"] as? String == "ok"
    }
    #expect(fastDone.count == 1000)
    #expect(slow.requests(pathPrefix: "/data/slow").count == 4)
    #expect(
      transfers.filter { ($0["path"] as? String)?.hasPrefix("slow/") == true }.allSatisfy {
        ($0["error"] as? [String: Any])?["code"] as? String == "cancelled"
      })
  }
}
