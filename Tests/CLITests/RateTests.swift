import Foundation
import HaulCore
import HaulTestSupport
import Testing

@Suite("--max-rate: one cap over all transfers together, through the built binary")
struct RateTests {
  @Test(arguments: transports)
  func four_parallel_downloads_stay_under_the_cap_together(transport: String) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-rate")
    let server = try FaultServer.started()
    defer {
      server.stop()
      directory.remove()
    }
    // Given 10 MiB in four files and a cap of 2 MiB/s: about five seconds when capped.
    let size: Int64 = 2_621_440
    let lines = try (0..<4).map { index in
      try manifestLine([
        "url": server.dataURL("r\(index)", size: size, seed: UInt64(80 + index)).absoluteString,
        "path": "r\(index).bin", "size": size,
        "sha256": TestContent.sha256(seed: UInt64(80 + index), count: size),
      ])
    }
    try writeManifest(lines, in: directory)

    let result = try await HaulBinary.run(
      [
        "run", "manifest.jsonl", "-o", "out", "--max-rate", "2M", "--transport", transport,
        "--events", "--report", "report.json",
      ], in: directory)

    // Then all four arrive whole, and the run's rate is never above the cap by more than the
    // first tenth of a second's burst. How close to the cap it comes is not checked here: a
    // loaded machine only slows haul, so a floor measured by the clock would fail for want
    // of CPU; the bucket's long-run rate is the cap by its own clock (`TokenBucketTests`).
    #expect(result.status == 0, "\(result.stderr)")
    let summary = try #require(
      try jsonFile(directory.file("report.json"))["summary"] as? [String: Any])
    let bytes = try #require(summary["bytes"] as? Int)
    let seconds = try #require(summary["seconds"] as? Double)
    #expect(bytes == 4 * Int(size))
    let ratio = Double(bytes) / seconds / Double(2 << 20)
    #expect(ratio <= 1.05, "\(ratio) of the cap over \(seconds) s")
    #expect(seconds >= 4.5, "the run took \(seconds) s")
    // The transfers ran in parallel, so the cap was shared rather than per transfer: all
    // four started before the first one ended, and through the curl transport the server
    // had them in flight together. The URLSession transport paces the one queue all its
    // transfers share, which can hold a request back until another's chunk is paced
    // (docs/behaviour.md, "The URLSession transport").
    let kinds = try result.events().compactMap { $0["type"] as? String }
    let firstEnd = try #require(kinds.firstIndex(of: "done"))
    #expect(kinds[..<firstEnd].filter { $0 == "start" }.count == 4, "\(kinds)")
    if transport == "curl" {
      #expect(server.maxInFlight(pathPrefix: "/data/r") >= 2)
    }
  }
}
