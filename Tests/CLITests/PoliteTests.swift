import Foundation
import HaulCore
import HaulTestSupport
import Testing

@Suite("Polite per host: 429 halves the host's limit, through the built binary")
struct PoliteTests {
  @Test(arguments: transports)
  func haul_keeps_to_half_its_room_for_a_host_after_the_first_burst_of_429s(transport: String)
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
    let perHost = 8
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
        "run", "manifest.jsonl", "-o", "out", "-j", "16", "--per-host", "\(perHost)",
        "--transport", transport, "-q", "--report", "report.json",
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

    // and once the first burst has ended, haul keeps to half its room for the host: one
    // halving leaves 4 in flight, which draws at most one more 429 before the next halving
    // leaves 2, under the server's 3. The burst is what began before the first 429 went out
    // and the first request of each of the 8 entries haul sent before it could read that 429:
    // a transport may put a request it was handed on the wire later, even after the 429.
    let settled = Self.burstEnd(records, answered: answered, firstEntries: perHost)
    let most = RequestRecord.maxInFlight(records, startingAfter: settled)
    #expect(most <= perHost / 2, "\(most) in flight after the first burst had ended")
    let refusedLater = records.filter { $0.startSequence > settled && $0.status == 429 }
    #expect(refusedLater.count <= 1, "\(refusedLater.count) answers 429 after the first burst")
  }

  /// The sequence number by which the first burst had ended: every request that began
  /// before `answered`, and the first request of each of the first `firstEntries` entries
  /// (`/data/p0` and on).
  static func burstEnd(_ records: [RequestRecord], answered: UInt64, firstEntries: Int)
    -> UInt64
  {
    let entries = Set((0..<firstEntries).map { "/data/p\($0)" })
    var firstSeen = Set<String>()
    var end = answered
    for record in records.sorted(by: { $0.startSequence < $1.startSequence }) {
      let isFirst = entries.contains(record.path) && firstSeen.insert(record.path).inserted
      if record.startSequence < answered || isFirst {
        end = max(end, record.endSequence ?? .max)
      }
    }
    return end
  }
}
