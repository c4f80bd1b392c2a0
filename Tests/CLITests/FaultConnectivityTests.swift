import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// SPEC "Waits for connectivity": a server that goes away mid-run and comes back costs no
/// entry its retries.
@Suite("Faults survived: the server goes down mid-run and comes back")
struct FaultConnectivityTests {
  @Test(arguments: transports)
  func a_server_restarted_mid_run_costs_no_retries(transport: String) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-fault-outage")
    let server = try FaultServer.started()
    defer {
      server.stop()
      directory.remove()
    }
    // Four files in flight (slow), one done before the outage, three queued behind -j 4.
    let size: Int64 = 400_000
    var lines = [try dataLine(server, "early", size: 1000, seed: 30)]
    for index in 0..<7 {
      lines.append(
        try dataLine(
          server, "slow\(index)", size: size, seed: UInt64(31 + index),
          options: ["drip": "200000"]))
    }
    try writeManifest(lines, in: directory)
    // --retries 0: any attempt the outage charged to an entry would fail it.
    let running = try HaulBinary.start(
      runArguments(transport, ["-j", "5", "--retries", "0", "--timeout", "5"]), in: directory)

    // Take the server down once the slow transfers have bytes on disk.
    func partialBytes(_ index: Int) -> Int64 {
      fileSize(directory.file("out/slow\(index).bin.haul-partial"))
    }
    for _ in 0..<250 where !(0..<4).allSatisfy({ partialBytes($0) > 0 }) {
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect((0..<4).allSatisfy { partialBytes($0) > 0 })
    server.stop()
    let requestsDuringOutage = server.requests.count
    try await Task.sleep(for: .seconds(2.5))
    #expect(running.process.isRunning, "haul gave up while the server was down")
    try server.start()
    let run = try FaultRun(try await running.finish(timeout: 60), reportIn: directory)

    #expect(run.result.status == 0, "\(run.result.stderr)")
    #expect(server.requests.count > requestsDuringOutage)
    #expect(holdsContent(directory.file("out/early.bin"), seed: 30, size: 1000))
    for index in 0..<7 {
      let line = index + 2
      #expect(run.status(line) == "ok", "\(run.describe(line))")
      #expect(
        holdsContent(
          directory.file("out/slow\(index).bin"), seed: UInt64(31 + index), size: size))
      // Every further attempt was a free one (delay 0), not a spent retry.
      #expect(run.delays(line).allSatisfy { $0 == 0 }, "\(run.retries(line))")
    }
    // The transfers cut by the outage resumed from their partial files.
    #expect(
      server.requests(pathPrefix: "/data/slow").contains { $0.value(for: "Range") != nil })
  }
}
