import Foundation
import HaulTestSupport
import Testing

/// `haul serve` jobs fetch `hf://` lines with the daemon's Hub and token.
@Suite("hf:// lines in haul serve jobs", .serialized)
struct HFServeTests {
  @Test func a_job_of_hf_lines_fetches_a_private_repository_with_the_daemons_token()
    async throws
  {
    try await HFHubFixture.with { hub in try await job(hub) }
  }

  private func job(_ hub: HFHubFixture) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-hf-serve")
    defer { directory.remove() }
    try writeManifest(["hf://org/private", "hf://datasets/org/data"], in: directory)
    var env = HFHubTests.environment(hub, home: directory)
    env["HF_TOKEN"] = HFHubFixture.token
    let daemon = try ServeDaemon(in: directory, environment: env)
    let added = try await daemon.client(["add", "manifest.jsonl", "-o", "root/out", "--wait"])
    #expect(added.status == 0, "\(added.stderr)")
    #expect(added.stderr.contains("complete: 4 ok, 0 skipped, 0 failed"), "\(added.stderr)")
    for path in hub.files("models/org/private") {
      #expect(
        HFHubTests.same(directory.file("root/out/private/\(path)"), hub, "models/org/private", path)
      )
    }
    for path in hub.files("datasets/org/data") {
      #expect(
        HFHubTests.same(directory.file("root/out/data/\(path)"), hub, "datasets/org/data", path))
    }
    #expect(hub.storageRequestsWithToken.isEmpty)
    #expect(try await daemon.terminate()?.status == 0)
  }
}
