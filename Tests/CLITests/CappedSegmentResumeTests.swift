import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// A segmented download under `--max-rate`, killed mid-way, resumes each segment where it
/// stopped on the next run, through both transports, against nginx.
@Suite("Segments under --max-rate resume after kill -9, against nginx")
struct CappedSegmentResumeTests {
  @Test(arguments: transports)
  func capped_segments_killed_mid_way_resume_per_segment(transport: String) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-capped-segments")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      let size: Int64 = 64 << 20
      let sha = try nginx.createFile("files/capped.bin", size: size, seed: 98)
      try writeManifest(
        [
          try manifestLine([
            "url": nginx.url("/files/capped.bin").absoluteString, "path": "capped.bin",
            "size": size, "sha256": sha,
          ])
        ], in: directory)
      let arguments = [
        "run", "manifest.jsonl", "-o", "out", "--segments", "4", "--max-rate", "8M",
        "--transport", transport, "-q", "--report", "report.json",
      ]
      // Killed once the state records 12 MiB (about 1.5 s at the cap), watched from a thread
      // of its own: a fixed sleep killed a run that a loaded machine had kept from starting.
      let running = try HaulBinary.start(arguments, in: directory)
      let statePath = directory.file("out/capped.bin.haul-state")
      await whenOffPool(
        {
          let saved = SegmentTests.savedSegments(statePath)?.reduce(0) { $0 + $1.next - $1.start }
          return (saved ?? 0) >= 12 << 20 || !running.isRunning
        }, timeout: 60, every: 0.02, then: { running.send(SIGKILL) })
      let killed = try await running.finish(timeout: 30)
      #expect(killed.status == SIGKILL, "haul ended before it was killed: \(killed.stderr)")

      let rerun = try await HaulBinary.run(arguments, in: directory)
      #expect(rerun.status == 0, "\(rerun.stderr)")
      let transfer = try #require(
        (try jsonFile(directory.file("report.json"))["transfers"] as? [[String: Any]])?.first)
      // At least 12 MiB were saved before the kill; the rerun fetches only what is missing.
      let moved = try #require(transfer["bytes"] as? Int)
      #expect(moved < Int(size) - (8 << 20), "the rerun moved \(moved) bytes")
      #expect(transfer["sha256"] as? String == sha)
    }
  }
}
