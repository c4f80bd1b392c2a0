import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// SIGINT under `--max-rate`: exit 130 within a few seconds, with the report written, on
/// both transports.
@Suite("A signal under --max-rate, through the built binary")
struct RateSignalTests {
  let directory: TemporaryDirectory
  let server: FaultServer

  init() throws {
    directory = try TemporaryDirectory(prefix: "haul-cli-rate-signal")
    server = try FaultServer.started()
  }

  func cleanUp() {
    server.stop()
    directory.remove()
  }

  @Test(arguments: transports)
  func sigint_under_max_rate_exits_within_a_few_seconds_writing_the_report(transport: String)
    async throws
  {
    defer { cleanUp() }
    let lines = try (0..<4).map { index in
      try dataLine(
        server, "capped\(index)", size: 200_000_000, seed: UInt64(30 + index),
        declareDigest: false)
    }
    try writeManifest(lines, in: directory)
    let running = try HaulBinary.start(
      [
        "run", "manifest.jsonl", "-o", "out", "--report", "report.json", "--transport", transport,
        "--max-rate", "8M", "-q",
      ], in: directory)
    let directory = directory
    // Once bytes are on disk haul handles signals; all four transfers have started by then.
    // Then the cap settles in, so the delegate queue is paced when the signal comes.
    let signalled = try await running.interrupt(SIGINT, settle: 2) {
      (0..<4).allSatisfy { fileSize(directory.file("out/capped\($0).bin.haul-partial")) > 0 }
    }
    #expect(signalled.ready, "not every transfer had bytes on disk before the signal")
    let started = signalled.sent
    let result = signalled.result
    let elapsed = result.ended.timeIntervalSince(started)

    #expect(result.status == 130, "\(result.stderr)")
    #expect(elapsed < 5, "exit took \(elapsed) s")
    let report = try jsonFile(directory.file("report.json"))
    let transfers = try #require(report["transfers"] as? [[String: Any]])
    #expect(transfers.count == 4)
    let codes = transfers.map { ($0["error"] as? [String: Any])?["code"] as? String }
    #expect(codes.allSatisfy { $0 == "cancelled" }, "\(codes): \(result.stderr)")
  }
}
