import Foundation
import HaulTestSupport
import Testing

/// Single-file `hf://` lines against the Hub test server (`Tests/CLITests/hf/hub_server.py`),
/// whose `resolve` answers `huggingface_hub`'s own `hf_hub_download` first takes for the
/// Hub's: each file is asked of the Hub with one `HEAD`, pinned to the commit it names,
/// checked against its digest, skipped by a rerun, and laid out in the Hub cache with
/// `--hf-cache` as `hf_hub_download` lays it out.
@Suite("hf:// single files, checked and cached", .serialized)
struct HFFileTests {
  /// The lines the tests fetch: files in LFS and not, a dataset's, a pull request's, one of
  /// a renamed repository (a redirect within the Hub).
  static let lines = [
    "hf://org/model/config.json",
    "hf://org/model/weights/model.bin",
    #"{"url": "hf://datasets/org/data@v1/data/train.csv", "path": "d/train.csv"}"#,
    "hf://org/model@refs/pr/1/sub/deep/notes.txt",
    #"{"url": "hf://org/old-model/sub/large.txt", "path": "renamed/large.txt"}"#,
  ]

  @Test func huggingface_hubs_hf_hub_download_takes_the_test_hubs_files_for_the_hubs()
    async throws
  {
    try await HFHubFixture.with { hub in try await hfHubDownload(hub) }
  }

  private func hfHubDownload(_ hub: HFHubFixture) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-hf-hub-download")
    defer { directory.remove() }
    let script = """
      from huggingface_hub import hf_hub_download, get_hf_file_metadata, hf_hub_url
      for repo, path, kind, rev in [("org/model", "config.json", None, None),
                                    ("org/model", "weights/model.bin", None, None),
                                    ("org/data", "data/train.csv", "dataset", "v1"),
                                    ("org/old-model", "sub/large.txt", None, None)]:
          meta = get_hf_file_metadata(hf_hub_url(repo, path, repo_type=kind, revision=rev))
          print(hf_hub_download(repo, path, repo_type=kind, revision=rev), meta.commit_hash,
                meta.etag, meta.size)
      """
    let printed = try HFHubTests.python(
      script, hub, home: directory,
      extra: ["HF_HUB_CACHE": directory.file("cache"), "HF_HUB_DISABLE_XET": "1"])
    try #require(printed.count == 4, "\(printed)")
    for (line, (repository, path)) in zip(
      printed,
      [
        ("models/org/model", "config.json"), ("models/org/model", "weights/model.bin"),
        ("datasets/org/data", "data/train.csv"), ("models/org/model", "sub/large.txt"),
      ])
    {
      let fields = line.split(separator: " ").map(String.init)
      try #require(fields.count == 4, "\(line)")
      #expect(HFHubTests.same(fields[0], hub, repository, path), "\(line)")
      #expect(fields[1].count == 40, "\(line)")
      let size = try #require(
        FileManager.default.attributesOfItem(atPath: hub.file(repository, path))[.size] as? Int)
      #expect(Int(fields[3]) == size, "\(line)")
      // The blob is named by the digest the Hub named: SHA-256 in LFS, else the git blob id.
      #expect(fields[0].contains("/snapshots/\(fields[1])/"), "\(line)")
      #expect(fields[2].count == (path.hasSuffix(".bin") || path.hasSuffix(".csv") ? 64 : 40))
    }
    // The metadata came from HEADs that stopped at the Hub, after the rename's redirect.
    #expect(
      hub.requests.contains { $0.hasPrefix("\(hub.port) HEAD /org/old-model/resolve/main/") })
    #expect(hub.requests.contains { $0.hasPrefix("\(hub.port) HEAD /org/model/resolve/main/sub/") })
    #expect(!hub.requests.contains { $0.hasPrefix("\(hub.storagePort) HEAD ") })
  }

  @Test(arguments: transports)
  func single_file_lines_are_checked_pinned_and_skipped_by_a_rerun(transport: String)
    async throws
  {
    try await HFHubFixture.with { hub in try await checked(hub, transport: transport) }
  }

  private func checked(_ hub: HFHubFixture, transport: String) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-hf-file")
    defer { directory.remove() }
    let manifest = try writeManifest(Self.lines, in: directory)
    let env = HFHubTests.environment(hub, home: directory)
    let arguments = ["run", manifest, "-o", "out", "--transport", transport, "-q"]
    let first = try await HaulBinary.run(
      arguments + ["--report", "report.json"], in: directory, environment: env)
    #expect(first.status == 0, "\(first.stderr)")
    for (local, repository, path) in [
      ("config.json", "models/org/model", "config.json"),
      ("model.bin", "models/org/model", "weights/model.bin"),
      ("d/train.csv", "datasets/org/data", "data/train.csv"),
      ("notes.txt", "models/org/model", "sub/deep/notes.txt"),
      ("renamed/large.txt", "models/org/model", "sub/large.txt"),
    ] {
      #expect(
        HFHubTests.same(directory.file("out/" + local), hub, repository, path), "\(local)")
    }
    let done = try HFHubTests.transfers(directory)
    #expect(done.count == 5, "\(done)")
    #expect(done.values.allSatisfy { $0["status"] as? String == "ok" }, "\(done)")
    for (path, source) in [
      ("config.json", "hf:git-blob-id"), ("model.bin", "hf:lfs-sha256"),
      ("d/train.csv", "hf:lfs-sha256"), ("notes.txt", "hf:git-blob-id"),
      ("renamed/large.txt", "hf:git-blob-id"),
    ] {
      #expect((done[path]?["verified"] as? [String]) == [source], "\(path): \(done[path] ?? [:])")
      // Each file came from the commit the Hub named, not from the moving revision.
      let url = done[path]?["url"] as? String ?? ""
      #expect(url.range(of: "/resolve/[0-9a-f]{40}/", options: .regularExpression) != nil, "\(url)")
    }
    // One HEAD a line, answered by the Hub; the storage host saw GETs alone.
    let heads = hub.requests.filter { $0.contains(" HEAD ") }
    #expect(heads.count == 6, "\(heads)")  // the renamed one is asked twice
    #expect(heads.allSatisfy { $0.hasPrefix("\(hub.port) ") }, "\(heads)")

    let before = hub.requests.count
    let again = try await HaulBinary.run(
      arguments + ["--report", "again.json"], in: directory, environment: env)
    #expect(again.status == 0, "\(again.stderr)")
    let skipped = try HFHubTests.transfers(directory, "again.json")
    #expect(skipped.count == 5)
    #expect(skipped.values.allSatisfy { $0["status"] as? String == "skipped" }, "\(skipped)")
    let asked = hub.requests.dropFirst(before)
    #expect(asked.allSatisfy { $0.contains(" HEAD ") }, "\(Array(asked))")
  }

  @Test func a_corrupt_file_a_wrong_size_and_a_gated_file_fail_each_with_its_reason()
    async throws
  {
    try await HFHubFixture.with { hub in try await refused(hub) }
  }

  private func refused(_ hub: HFHubFixture) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-hf-file-refused")
    defer { directory.remove() }
    let manifest = try writeManifest(
      [
        "hf://org/corrupt/broken.txt",
        "hf://org/corrupt/broken.bin",
        try manifestLine(["url": "hf://org/model/config.json", "size": 7]),
        "hf://org/gated/model.bin",
        "hf://org/model/no-such-file.txt",
      ], in: directory)
    let run = try await HaulBinary.run(
      ["run", manifest, "-o", "out", "--report", "report.json", "--retries", "0"],
      in: directory, environment: HFHubTests.environment(hub, home: directory))
    #expect(run.status == 1, "\(run.stderr)")
    let transfers = try HFHubTests.transfers(directory)
    for (path, code, said) in [
      ("broken.txt", "checksum_mismatch", "hf:git-blob-id"),
      ("broken.bin", "checksum_mismatch", "hf:lfs-sha256"),
      ("config.json", "size_mismatch", "the Hub 41"),
      ("model.bin", "http_401", "is restricted"),
      ("no-such-file.txt", "http_404", "404"),
    ] {
      #expect(HFHubTests.code(transfers[path]) == code, "\(path): \(transfers)")
      #expect(HFHubTests.message(transfers[path]).contains(said), "\(path): \(transfers)")
      #expect(!FileManager.default.fileExists(atPath: directory.file("out/" + path)), "\(path)")
    }
    // The gated file's HEAD was refused on the Hub: nothing reached the storage host.
    #expect(!hub.requests.contains { $0.hasPrefix("\(hub.storagePort) ") && $0.contains("gated") })
  }

  @Test(arguments: transports)
  func single_files_land_in_the_cache_and_huggingface_hub_loads_them_offline(transport: String)
    async throws
  {
    try await HFHubFixture.with { hub in try await cache(hub, transport: transport) }
  }

  private func cache(_ hub: HFHubFixture, transport: String) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-hf-file-cache")
    defer { directory.remove() }
    let manifest = try writeManifest(
      [
        "hf://org/model/config.json", "hf://org/model/weights/model.bin",
        "hf://datasets/org/data@v1/data/train.csv", "hf://org/model@refs/pr/1/sub/deep/notes.txt",
      ], in: directory)
    let env = HFHubTests.environment(hub, home: directory)
    let arguments = ["run", manifest, "--hf-cache=cache", "--transport", transport, "-q"]
    let first = try await HaulBinary.run(
      arguments + ["--report", "report.json"], in: directory, environment: env)
    #expect(first.status == 0, "\(first.stderr)")
    let done = try HFHubTests.transfers(directory)
    #expect(done.count == 4, "\(done)")
    #expect(done.keys.allSatisfy { $0.contains("--org--") && $0.contains("/blobs/") }, "\(done)")

    let model = directory.file("cache/models--org--model")
    let commit = try String(contentsOfFile: model + "/refs/main", encoding: .utf8)
    #expect(commit.count == 40)
    #expect(try String(contentsOfFile: model + "/refs/refs/pr/1", encoding: .utf8) == commit)
    let link = try FileManager.default.destinationOfSymbolicLink(
      atPath: model + "/snapshots/\(commit)/weights/model.bin")
    #expect(link.hasPrefix("../../../blobs/") && link.count == "../../../blobs/".count + 64)
    // Only the files the lines name are in the snapshot.
    let snapshot = try FileManager.default.subpathsOfDirectory(atPath: model + "/snapshots")
    let links = snapshot.filter {
      (try? FileManager.default.destinationOfSymbolicLink(atPath: model + "/snapshots/" + $0))
        != nil
    }
    #expect(
      Set(links)
        == Set(
          ["config.json", "weights/model.bin", "sub/deep/notes.txt"].map { commit + "/" + $0 }),
      "\(snapshot)")

    let script = """
      from huggingface_hub import hf_hub_download
      print(hf_hub_download("org/model", "config.json"))
      print(hf_hub_download("org/model", "weights/model.bin"))
      print(hf_hub_download("org/data", "data/train.csv", repo_type="dataset", revision="v1"))
      print(hf_hub_download("org/model", "sub/deep/notes.txt", revision="refs/pr/1"))
      """
    let found = try HFHubTests.python(
      script, hub, home: directory,
      extra: ["HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": directory.file("cache")])
    try #require(found.count == 4, "\(found)")
    for (local, (repository, path)) in zip(
      found,
      [
        ("models/org/model", "config.json"), ("models/org/model", "weights/model.bin"),
        ("datasets/org/data", "data/train.csv"), ("models/org/model", "sub/deep/notes.txt"),
      ])
    {
      #expect(HFHubTests.same(local, hub, repository, path), "\(local)")
    }

    let again = try await HaulBinary.run(
      arguments + ["--report", "again.json"], in: directory, environment: env)
    #expect(again.status == 0, "\(again.stderr)")
    let skipped = try HFHubTests.transfers(directory, "again.json")
    #expect(skipped.count == 4)
    #expect(skipped.values.allSatisfy { $0["status"] as? String == "skipped" }, "\(skipped)")
  }
}
