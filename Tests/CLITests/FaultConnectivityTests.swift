import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// docs/behaviour.md, "Waiting for connectivity": a server that goes away mid-run and comes back costs no
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
    // Four slow files in flight, one small one done before the outage, three queued (-j 5).
    let size: Int64 = 400_000
    var lines = [try dataLine(server, "early", size: 1000, seed: 30)]
    for index in 0..<7 {
      lines.append(
        try dataLine(
          server, "slow\(index)", size: size, seed: UInt64(31 + index),
          options: ["drip": "200000"]))
    }
    try writeManifest(lines, in: directory)
    // --retries 1: the body cut by the outage may cost a transfer its one retry (a cut body
    // is `protocol`); every refused connection after it must be free, or it would fail.
    let running = try HaulBinary.start(
      runArguments(transport, ["-j", "5", "--retries", "1", "--timeout", "5"]), in: directory)

    // Take the server down once four slow transfers (any four) have bytes on disk.
    let partials = (0..<7).map { directory.file("out/slow\($0).bin.haul-partial") }
    let inFlight = await whenOffPool(
      { partials.filter { fileSize($0) > 0 }.count >= 4 }, timeout: 20,
      then: { server.stop() })
    #expect(inFlight, "the slow transfers never had bytes on disk together")
    let requestsDuringOutage = server.requests.count
    try await Task.sleep(for: .seconds(2.5))
    #expect(running.isRunning, "haul gave up while the server was down")
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
      // At most one retry was spent (the cut body's, after a backoff); the refused
      // connections during the outage were free (code `connection`, no delay).
      let retries = run.retries(line)
      #expect(retries.filter { ($0["delay"] as? Double ?? 0) > 0 }.count <= 1, "\(retries)")
      #expect(
        retries.filter { $0["code"] as? String == "connection" }
          .allSatisfy { $0["delay"] as? Double == 0 }, "\(retries)")
    }
    // The transfers cut by the outage resumed from their partial files.
    #expect(
      server.requests(pathPrefix: "/data/slow").contains { $0.value(for: "Range") != nil })
  }
}
