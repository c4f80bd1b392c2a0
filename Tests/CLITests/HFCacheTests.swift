import Foundation
import HaulTestSupport
import Testing

/// `--hf-cache`: `hf://` folders land in the Hub cache's layout, which `huggingface_hub`
/// then loads with `HF_HUB_OFFLINE=1`, and a rerun skips.
@Suite("hf:// folders into the Hugging Face Hub cache", .serialized)
struct HFCacheTests {
  @Test(arguments: transports)
  func huggingface_hub_loads_the_cache_offline_and_a_rerun_skips(transport: String)
    async throws
  {
    try await HFHubFixture.with { hub in try await cache(hub, transport: transport) }
  }

  private func cache(_ hub: HFHubFixture, transport: String) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-hf-cache")
    defer { directory.remove() }
    let manifest = try writeManifest(
      ["hf://org/model", "hf://datasets/org/data@v1/"], in: directory)
    let env = HFHubTests.environment(hub, home: directory)
    let arguments = ["run", manifest, "--hf-cache=cache", "--transport", transport, "-q"]
    let first = try await HaulBinary.run(
      arguments + ["--report", "report.json"], in: directory, environment: env)
    #expect(first.status == 0, "\(first.stderr)")

    // Another revision of the same commit adds its ref and finds every blob in place.
    let pr = try writeManifest(["hf://org/model@refs/pr/1/"], named: "pr.jsonl", in: directory)
    let other = try await HaulBinary.run(
      ["run", pr, "--hf-cache=cache", "-q", "--report", "pr.json"], in: directory,
      environment: env)
    #expect(other.status == 0, "\(other.stderr)")
    let reused = try HFHubTests.transfers(directory, "pr.json")
    #expect(reused.values.allSatisfy { $0["status"] as? String == "skipped" }, "\(reused)")

    // The refs hold the bare commit; the snapshot's files are relative links into blobs/.
    let model = directory.file("cache/models--org--model")
    let commit = try String(contentsOfFile: model + "/refs/main", encoding: .utf8)
    #expect(commit.count == 40)
    #expect(try String(contentsOfFile: model + "/refs/refs/pr/1", encoding: .utf8) == commit)
    #expect(
      FileManager.default.fileExists(atPath: directory.file("cache/datasets--org--data/refs/v1")))
    let link = try FileManager.default.destinationOfSymbolicLink(
      atPath: model + "/snapshots/\(commit)/weights/model.bin")
    #expect(link.hasPrefix("../../../blobs/"), "\(link)")

    // huggingface_hub finds every file offline.
    let snapshots = try offline(hub, cache: directory.file("cache"), in: directory)
    for (repository, snapshot) in [
      ("models/org/model", snapshots[0]), ("datasets/org/data", snapshots[1]),
    ] {
      for path in hub.files(repository) {
        #expect(HFHubTests.same(snapshot + "/" + path, hub, repository, path), "\(path)")
      }
    }

    let again = try await HaulBinary.run(
      arguments + ["--report", "again.json"], in: directory, environment: env)
    #expect(again.status == 0, "\(again.stderr)")
    let skipped = try HFHubTests.transfers(directory, "again.json")
    #expect(!skipped.isEmpty)
    #expect(skipped.values.allSatisfy { $0["status"] as? String == "skipped" }, "\(skipped)")
  }

  /// The snapshot folders `snapshot_download` gives offline for the model and the dataset.
  private func offline(_ hub: HFHubFixture, cache: String, in directory: TemporaryDirectory)
    throws -> [String]
  {
    let script = """
      from huggingface_hub import snapshot_download, hf_hub_download
      print(snapshot_download("org/model"))
      print(snapshot_download("org/data", repo_type="dataset", revision="v1"))
      print(hf_hub_download("org/model", "sub/deep/notes.txt", revision="refs/pr/1"))
      """
    let lines = try HFHubTests.python(
      script, hub, home: directory, extra: ["HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": cache])
    guard lines.count == 3 else { throw FixtureError("huggingface_hub printed \(lines)") }
    return lines
  }
}
