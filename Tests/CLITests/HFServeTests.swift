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

  @Test func a_job_with_hf_cache_fills_the_clients_hub_cache_inside_a_root() async throws {
    try await HFHubFixture.with { hub in
      let directory = try TemporaryDirectory(prefix: "haul-hf-serve-cache")
      defer { directory.remove() }
      let env = HFHubTests.environment(hub, home: directory)
      let daemon = try ServeDaemon(in: directory, environment: env)
      let both = try await daemon.client(["add", "hf://org/model", "-o", "root/x", "--hf-cache"])
      #expect(both.status == 2, "\(both.stderr)")
      let added = try await daemon.client(
        ["add", "hf://org/model", "--hf-cache=root/cache", "--wait"])
      #expect(added.status == 0, "\(added.stderr)")
      let model = directory.file("root/cache/models--org--model")
      let listed = FileManager.default.subpaths(atPath: directory.file("root")) ?? []
      let commit = try #require(
        try? String(contentsOfFile: model + "/refs/main", encoding: .utf8), "\(listed)")
      for path in hub.files("models/org/model") {
        let file = model + "/snapshots/\(commit)/" + path
        let link = try FileManager.default.destinationOfSymbolicLink(atPath: file)
        #expect(link.contains("blobs/"), "\(path): \(link)")
        #expect(HFHubTests.same(file, hub, "models/org/model", path), "\(path)")
      }
      // A cache outside the daemon's roots is refused like any output.
      let outside = try await daemon.client(["add", "hf://org/model", "--hf-cache=elsewhere"])
      #expect(outside.status != 0 && outside.stderr.contains("root"), "\(outside.stderr)")
      #expect(try await daemon.terminate()?.status == 0)
    }
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
