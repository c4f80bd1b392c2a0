import Foundation
import HaulCore
import HaulTestSupport
import Testing

@Suite("Polite per host: 429 halves the host's limit, through the built binary")
struct PoliteTests {
  @Test(arguments: transports)
  func a_throttling_server_sees_at_most_its_limit_after_the_first_429(transport: String)
    async throws
  {
    let directory = try TemporaryDirectory(prefix: "haul-cli-polite")
    let server = try FaultServer.started()
    defer {
      server.stop()
      directory.remove()
    }
    // Given a server that answers 429 whenever more than 3 requests are in flight, each
    // request taking 0.2 s,
    let limit = 3
    let lines = try (0..<24).map { index in
      try manifestLine([
        "url": server.dataURL(
          "p\(index)", size: 2000, seed: UInt64(90 + index),
          options: ["throttle": "\(limit)", "wait": "0.2"]
        ).absoluteString,
        "path": "p\(index).bin",
        "sha256": TestContent.sha256(seed: UInt64(90 + index), count: 2000),
      ])
    }
    try writeManifest(lines, in: directory)

    // when haul starts with room for 8 to that host,
    let result = try await HaulBinary.run(
      [
        "run", "manifest.jsonl", "-o", "out", "-j", "16", "--per-host", "8", "--transport",
        transport, "-q", "--report", "report.json",
      ], in: directory, timeout: 90)

    // then every file arrives,
    #expect(result.status == 0, "\(result.stderr)")
    let summary = try #require(
      try jsonFile(directory.file("report.json"))["summary"] as? [String: Any])
    #expect(summary["succeeded"] as? Int == 24)

    // the server did push back,
    let records = server.requests(pathPrefix: "/data/p")
    let first = try #require(records.first { $0.status == 429 })
    let answered = try #require(first.endSequence)

    // and once what was in flight when the first 429 went out has drained (and what started
    // before haul could have read the 429), haul never has more than 3 requests in flight.
    let drained = Self.drained(records, after: answered)
    let settled = Self.drained(records, after: drained)
    let most = RequestRecord.maxInFlight(records, startingAfter: settled)
    #expect(most <= limit, "\(most) in flight after the first 429 had drained")
    #expect(records.filter { $0.startSequence > settled && $0.status == 429 }.isEmpty)
  }

  /// The sequence number by which every request started before `sequence` had ended.
  static func drained(_ records: [RequestRecord], after sequence: UInt64) -> UInt64 {
    records.filter { $0.startSequence < sequence }.map { $0.endSequence ?? .max }.max()
      ?? sequence
  }

}
