import Foundation
import HaulTestSupport
import Testing

/// `hf://` lines against a Hub test server (`Tests/CLITests/hf/hub_server.py`), first proved
/// right by `huggingface_hub`'s own `snapshot_download`: every file exact, reruns skipped,
/// a corrupt blob refused, a gated repository's refusal told, and the token kept to the
/// Hub's origin (the storage host refuses any request that carries it).
@Suite("hf:// repositories from a Hub test server", .serialized)
struct HFHubTests {
  /// Runs `script` under `python3` with `arguments`, the Hub's environment and `extra`: the
  /// lines of its standard output. Its standard error goes to a file in `home` (a progress
  /// bar can fill a pipe that nobody reads while the output is read), and is shown when the
  /// script fails.
  static func python(
    _ script: String, _ hub: HFHubFixture, home: TemporaryDirectory, arguments: [String] = [],
    extra: [String: String] = [:]
  ) throws -> [String] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script] + arguments
    process.environment = ProcessInfo.processInfo.environment.merging(
      environment(hub, home: home).merging(extra) { $1 }
    ) { $1 }
    let errorsPath = home.file("python-errors.txt")
    _ = FileManager.default.createFile(atPath: errorsPath, contents: nil)
    let errors = try FileHandle(forWritingTo: URL(fileURLWithPath: errorsPath))
    defer { try? errors.close() }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let printed = String(
      decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let said = (try? String(contentsOfFile: errorsPath, encoding: .utf8)) ?? ""
    #expect(process.terminationStatus == 0, "\(said.suffix(2000))")
    return printed.split(separator: "\n").map(String.init)
  }

  /// The Hub's token environment cleared, so that no token of the machine's is found.
  static func environment(_ hub: HFHubFixture, home: TemporaryDirectory) -> [String: String] {
    [
      "HF_ENDPOINT": hub.endpoint, "HF_TOKEN": "", "HUGGING_FACE_HUB_TOKEN": "",
      "HF_HOME": home.file("hf-home"), "HF_TOKEN_PATH": home.file("no-token"),
      "HF_HUB_DISABLE_TELEMETRY": "1",
    ]
  }

  /// The report's transfers by path.
  static func transfers(_ directory: TemporaryDirectory, _ name: String = "report.json") throws
    -> [String: [String: Any]]
  {
    let all = try #require(try jsonFile(directory.file(name))["transfers"] as? [[String: Any]])
    var byPath: [String: [String: Any]] = [:]
    for transfer in all { byPath[transfer["path"] as? String ?? ""] = transfer }
    return byPath
  }

  static func code(_ transfer: [String: Any]?) -> String? {
    (transfer?["error"] as? [String: Any])?["code"] as? String
  }

  static func message(_ transfer: [String: Any]?) -> String {
    (transfer?["error"] as? [String: Any])?["message"] as? String ?? ""
  }

  /// Whether `local` holds exactly the bytes of the Hub's `path` of `repository`.
  static func same(_ local: String, _ hub: HFHubFixture, _ repository: String, _ path: String)
    -> Bool
  {
    guard let mine = FileManager.default.contents(atPath: local),
      let theirs = FileManager.default.contents(atPath: hub.file(repository, path))
    else { return false }
    return mine == theirs
  }

  @Test func huggingface_hubs_snapshot_download_takes_the_test_hub_for_a_hub() async throws {
    try await HFHubFixture.with { hub in try await snapshotDownload(hub) }
  }

  private func snapshotDownload(_ hub: HFHubFixture) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-hf-snapshot")
    defer { directory.remove() }
    let script = """
      import sys
      from huggingface_hub import snapshot_download
      out = sys.argv[1]
      snapshot_download("org/model", local_dir=out + "/model", token=False)
      snapshot_download("org/data", repo_type="dataset", revision="refs/pr/1",
                        local_dir=out + "/data", token=False)
      snapshot_download("org/private", local_dir=out + "/private", token=sys.argv[2])
      """
    _ = try Self.python(
      script, hub, home: directory, arguments: [directory.path, HFHubFixture.token],
      extra: ["HF_HUB_DISABLE_XET": "1"])
    for (local, repository) in [
      ("model", "models/org/model"), ("data", "datasets/org/data"),
      ("private", "models/org/private"),
    ] {
      let files = hub.files(repository)
      #expect(files.count >= 2)
      for path in files {
        #expect(Self.same(directory.file("\(local)/\(path)"), hub, repository, path), "\(path)")
      }
    }
    #expect(hub.requests.contains { $0.contains("cursor=") }, "the tree was paged")
    #expect(hub.storageRequestsWithToken.isEmpty)
  }

  @Test(arguments: transports)
  func hf_lines_bring_every_file_exact_and_a_rerun_skips_them(transport: String) async throws {
    try await HFHubFixture.with { hub in try await everyFile(hub, transport: transport) }
  }

  private func everyFile(_ hub: HFHubFixture, transport: String) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-hf-files")
    defer { directory.remove() }
    let manifest = try writeManifest(
      [
        "hf://org/model",
        try manifestLine(["url": "hf://datasets/org/data@v1/", "path": "data/"]),
        "hf://org/model/config.json",
        try manifestLine(["url": "hf://org/model@refs/pr/1/sub/", "path": "pr/"]),
      ], in: directory)
    let arguments = ["run", manifest, "-o", "out", "--transport", transport, "-q"]
    let env = Self.environment(hub, home: directory)
    let first = try await HaulBinary.run(
      arguments + ["--report", "report.json", "--segments", "2", "--min-segment-size", "64K"],
      in: directory, environment: env)
    #expect(first.status == 0, "\(first.stderr)")
    for path in hub.files("models/org/model") {
      #expect(
        Self.same(directory.file("out/model/\(path)"), hub, "models/org/model", path), "\(path)")
    }
    for path in hub.files("datasets/org/data") {
      #expect(
        Self.same(directory.file("out/data/\(path)"), hub, "datasets/org/data", path), "\(path)")
    }
    #expect(Self.same(directory.file("out/config.json"), hub, "models/org/model", "config.json"))
    #expect(
      Self.same(
        directory.file("out/pr/sub/deep/notes.txt"), hub, "models/org/model", "sub/deep/notes.txt"))
    let done = try Self.transfers(directory)
    let model = hub.files("models/org/model")
    #expect(done.count == model.count + 3 + model.count { $0.hasPrefix("sub/") })
    #expect(done.values.allSatisfy { $0["status"] as? String == "ok" }, "\(done)")
    #expect(
      (done["model/weights/model.bin"]?["verified"] as? [String])?.contains("hf:lfs-sha256") == true
    )
    #expect(
      (done["model/README.md"]?["verified"] as? [String])?.contains("hf:git-blob-id") == true)
    #expect(hub.requests.contains { $0.contains("cursor=") }, "the tree was paged")
    // A large file not in LFS came in ranges, its git blob id checked over them all.
    #expect(
      hub.requests.contains {
        $0.contains("/resolve/") && $0.contains("large.txt ") && !$0.hasSuffix(" -")
          && !$0.hasSuffix(" bytes=0-0")
      },
      "\(hub.requests)")
    #expect(
      (done["model/sub/large.txt"]?["verified"] as? [String])?.contains("hf:git-blob-id") == true)

    let again = try await HaulBinary.run(
      arguments + ["--report", "again.json"], in: directory, environment: env)
    #expect(again.status == 0, "\(again.stderr)")
    let skipped = try Self.transfers(directory, "again.json")
    #expect(skipped.count == done.count)
    #expect(skipped.values.allSatisfy { $0["status"] as? String == "skipped" }, "\(skipped)")
  }

  @Test func an_endpoint_with_a_path_takes_every_url_below_it() async throws {
    try await HFHubFixture.with { hub in try await mirror(hub) }
  }

  private func mirror(_ hub: HFHubFixture) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-hf-mirror")
    defer { directory.remove() }
    let manifest = try writeManifest(["hf://org/model"], in: directory)
    var env = Self.environment(hub, home: directory)
    env["HF_ENDPOINT"] = hub.endpoint + "/mirror/"
    let run = try await HaulBinary.run(
      ["run", manifest, "-o", "out", "-q"], in: directory, environment: env)
    #expect(run.status == 0, "\(run.stderr)")
    for path in hub.files("models/org/model") {
      #expect(Self.same(directory.file("out/model/\(path)"), hub, "models/org/model", path))
    }
    let asked = hub.requests.filter { $0.hasPrefix("\(hub.port) ") }
    #expect(!asked.isEmpty)
    #expect(asked.allSatisfy { $0.contains(" /mirror/") }, "\(asked)")
    #expect(
      asked.contains { $0.contains("/mirror/api/models/org/model/tree/") && $0.contains("cursor=") }
    )
  }

  @Test(arguments: transports)
  func the_token_opens_a_private_repository_and_never_reaches_the_storage_host(
    transport: String
  ) async throws {
    try await HFHubFixture.with { hub in try await privateRepository(hub, transport: transport) }
  }

  private func privateRepository(_ hub: HFHubFixture, transport: String) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-hf-private")
    defer { directory.remove() }
    try (HFHubFixture.token + "\n").write(
      toFile: directory.file("token"), atomically: true, encoding: .utf8)
    let manifest = try writeManifest(
      ["hf://org/private", "hf://org/model/weights/"], in: directory)
    var env = Self.environment(hub, home: directory)
    env["HF_TOKEN_PATH"] = directory.file("token")
    let run = try await HaulBinary.run(
      [
        "run", manifest, "-o", "out", "--report", "report.json", "--events", "--transport",
        transport,
      ], in: directory, environment: env)
    #expect(run.status == 0, "\(run.stderr)")
    for path in hub.files("models/org/private") {
      #expect(Self.same(directory.file("out/private/\(path)"), hub, "models/org/private", path))
    }
    #expect(
      Self.same(
        directory.file("out/model/weights/model.bin"), hub, "models/org/model", "weights/model.bin")
    )
    // The Hub got the token; the storage host, which refuses it, never did.
    #expect(
      hub.requests.contains {
        $0.hasPrefix("\(hub.port) GET /api/models/org/private") && $0.contains(" auth ")
      })
    #expect(hub.requests.contains { $0.hasPrefix("\(hub.storagePort) GET /blobs/") })
    #expect(!hub.requests.contains { $0.hasPrefix("\(hub.storagePort) ") && $0.contains(" auth ") })
    #expect(hub.storageRequestsWithToken.isEmpty)
    let report = try String(contentsOfFile: directory.file("report.json"), encoding: .utf8)
    #expect(!(run.stdout + run.stderr + report).contains(HFHubFixture.token))
  }

  @Test func a_private_repository_without_the_token_fails_with_401_naming_it() async throws {
    try await HFHubFixture.with { hub in try await privateWithoutToken(hub) }
  }

  private func privateWithoutToken(_ hub: HFHubFixture) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-hf-private-refused")
    defer { directory.remove() }
    let manifest = try writeManifest(["hf://org/private"], in: directory)
    let run = try await HaulBinary.run(
      ["run", manifest, "-o", "out", "--report", "report.json", "--retries", "0"],
      in: directory, environment: Self.environment(hub, home: directory))
    #expect(run.status == 1, "\(run.stderr)")
    let failed = try #require(try Self.transfers(directory)["private/"])
    #expect(Self.code(failed) == "http_401")
    #expect(Self.message(failed).contains("hf://org/private"), "\(failed)")
    #expect(Self.message(failed).contains("no token"), "\(failed)")
  }

  @Test func a_gated_repository_refuses_each_file_with_the_hubs_message() async throws {
    try await HFHubFixture.with { hub in try await gated(hub) }
  }

  private func gated(_ hub: HFHubFixture) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-hf-gated")
    defer { directory.remove() }
    let manifest = try writeManifest(["hf://org/gated"], in: directory)
    let arguments = ["run", manifest, "-o", "out", "--report", "report.json", "--retries", "0"]
    var env = Self.environment(hub, home: directory)
    let anonymous = try await HaulBinary.run(arguments, in: directory, environment: env)
    #expect(anonymous.status == 1, "\(anonymous.stderr)")
    let refused = try #require(try Self.transfers(directory)["gated/model.bin"])
    #expect(Self.code(refused) == "http_401", "\(refused)")
    #expect(Self.message(refused).contains("hf://org/gated"), "\(refused)")
    #expect(Self.message(refused).contains("is restricted"), "\(refused)")
    #expect(Self.message(refused).contains("no token"), "\(refused)")

    env["HF_TOKEN"] = "hf_without_access_42"
    let tokened = try await HaulBinary.run(arguments, in: directory, environment: env)
    #expect(tokened.status == 1, "\(tokened.stderr)")
    let forbidden = try #require(try Self.transfers(directory)["gated/model.bin"])
    #expect(Self.code(forbidden) == "http_403", "\(forbidden)")
    #expect(Self.message(forbidden).contains("HF_TOKEN"), "\(forbidden)")
    let report = try String(contentsOfFile: directory.file("report.json"), encoding: .utf8)
    #expect(!(tokened.stdout + tokened.stderr + report).contains("hf_without_access_42"))
    #expect(!FileManager.default.fileExists(atPath: directory.file("out/gated/model.bin")))
  }

  @Test(arguments: transports)
  func a_corrupt_blob_fails_with_checksum_mismatch_and_leaves_no_file(transport: String)
    async throws
  {
    try await HFHubFixture.with { hub in try await corrupt(hub, transport: transport) }
  }

  private func corrupt(_ hub: HFHubFixture, transport: String) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-hf-corrupt")
    defer { directory.remove() }
    let manifest = try writeManifest(["hf://org/corrupt"], in: directory)
    let run = try await HaulBinary.run(
      [
        "run", manifest, "-o", "out", "--report", "report.json", "--retries", "0",
        "--transport", transport,
      ], in: directory, environment: Self.environment(hub, home: directory))
    #expect(run.status == 1, "\(run.stderr)")
    let transfers = try Self.transfers(directory)
    for path in ["corrupt/broken.txt", "corrupt/broken.bin"] {
      #expect(Self.code(transfers[path]) == "checksum_mismatch", "\(path): \(transfers)")
      #expect(!FileManager.default.fileExists(atPath: directory.file("out/" + path)), "\(path)")
    }
    #expect(Self.message(transfers["corrupt/broken.txt"]).contains("hf:git-blob-id"))
    #expect(Self.message(transfers["corrupt/broken.bin"]).contains("hf:lfs-sha256"))
  }
}

/// A file cut off halfway resumes from the storage host's bytes through a new signed URL.
@Suite("hf:// downloads resume through a fresh redirect", .serialized)
struct HFResumeTests {
  @Test(arguments: transports)
  func a_file_cut_off_resumes_with_a_range_from_a_new_signed_url(transport: String)
    async throws
  {
    try await HFHubFixture.with { hub in try await resume(hub, transport: transport) }
  }

  private func resume(_ hub: HFHubFixture, transport: String) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-hf-resume")
    defer { directory.remove() }
    let manifest = try writeManifest(["hf://org/flaky"], in: directory)
    let run = try await HaulBinary.run(
      ["run", manifest, "-o", "out", "--report", "report.json", "--transport", transport],
      in: directory, environment: HFHubTests.environment(hub, home: directory))
    #expect(run.status == 0, "\(run.stderr)")
    #expect(
      HFHubTests.same(directory.file("out/flaky/big.bin"), hub, "models/org/flaky", "big.bin"))
    let storage = hub.requests.filter { $0.hasPrefix("\(hub.storagePort) GET /blobs/") }
    #expect(storage.count == 2, "\(storage)")
    // Each attempt asked the Hub again and was sent to another signed URL; the second
    // asked for the rest only.
    let signed = Set(storage.map { $0.split(separator: " ")[2] })
    #expect(signed.count == 2)
    #expect(storage.last?.hasSuffix(" bytes=100000-") == true, "\(storage)")
    let transfer = try #require(try HFHubTests.transfers(directory)["flaky/big.bin"])
    #expect(transfer["attempts"] as? Int == 2, "\(transfer)")
  }
}
