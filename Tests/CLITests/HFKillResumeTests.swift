import Foundation
import HaulTestSupport
import Testing

/// An hf:// file whose run is killed (`kill -9`) part-way resumes on the next run from its
/// partial file, with a range from a fresh redirect, and ends as the Hub's bytes.
@Suite("hf:// files resume after kill -9", .serialized)
struct HFKillResumeTests {
  @Test(arguments: transports)
  func a_killed_run_resumes_the_partial_file_on_the_next(transport: String) async throws {
    try await HFHubFixture.with { hub in try await killAndResume(hub, transport: transport) }
  }

  private func killAndResume(_ hub: HFHubFixture, transport: String) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-hf-kill")
    defer { directory.remove() }
    let manifest = try writeManifest(
      [#"{"url": "hf://org/model/weights/model.bin", "path": "model.bin"}"#], in: directory)
    let environment = HFHubTests.environment(hub, home: directory)
    // Paced at 20 KiB/s, the 300,000-byte file takes about 15 s: killed once its partial
    // file holds 60,000 bytes, watched from a thread of its own so that a loaded machine
    // that is slow to start haul does not kill it before it began.
    let running = try HaulBinary.start(
      ["run", manifest, "-o", "out", "--max-rate", "20K", "-q", "--transport", transport],
      in: directory, environment: environment)
    let out = directory.file("out")
    await whenOffPool(
      { Self.partialBytes(in: out) >= 60_000 || !running.isRunning }, timeout: 120,
      every: 0.02, then: { running.send(SIGKILL) })
    let killed = try await running.finish(timeout: 30)
    #expect(killed.status == SIGKILL, "haul ended before it was killed: \(killed.stderr)")
    let kept = Self.partialBytes(in: out)
    #expect(kept >= 60_000 && kept < 300_000, "\(kept) bytes kept")
    #expect(!FileManager.default.fileExists(atPath: directory.file("out/model.bin")))

    let run = try await HaulBinary.run(
      ["run", manifest, "-o", "out", "--report", "report.json", "--transport", transport],
      in: directory, environment: environment)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(
      HFHubTests.same(directory.file("out/model.bin"), hub, "models/org/model", "weights/model.bin")
    )
    #expect(Self.partialBytes(in: out) == 0, "no partial file is left")
    // The second run asked the storage host only for what the partial file lacked.
    let storage = hub.requests.filter { $0.hasPrefix("\(hub.storagePort) GET /blobs/") }
    let resumed = try #require(storage.last)
    let from = try #require(resumed.split(separator: "=").last.map { $0.dropLast() })
    #expect(resumed.contains(" bytes=") && Int(from).map { $0 >= 60_000 } == true, "\(storage)")
    let transfer = try #require(try HFHubTests.transfers(directory)["model.bin"])
    #expect((transfer["bytes"] as? Int).map { $0 < 300_000 } == true, "\(transfer)")
    #expect(transfer["verified"] as? [String] == ["hf:lfs-sha256"], "\(transfer)")
  }

  /// The bytes of the partial files in `folder`, 0 when there is none.
  private static func partialBytes(in folder: String) -> Int {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    return names.filter { $0.hasSuffix(".haul-partial") }.reduce(0) { total, name in
      let attributes = try? FileManager.default.attributesOfItem(atPath: folder + "/" + name)
      return total + ((attributes?[.size] as? NSNumber)?.intValue ?? 0)
    }
  }
}
