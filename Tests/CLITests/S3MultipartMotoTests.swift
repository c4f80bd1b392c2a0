import Foundation
import HaulTestSupport
import Testing

/// Multipart uploads to moto (signature checking on) that survive `kill -9`: the rerun asks
/// `ListParts`, sends only the parts the server lacks and completes; a source changed in
/// between starts a new upload. Through the built binary and both transports.
@Suite("S3 multipart uploads through moto: killed and resumed", .serialized)
struct S3MultipartMotoTests {
  static let bucket = "haul-parts"
  static let part: Int64 = 5 << 20
  static let size: Int64 = 8 * part + 12_345

  /// The parts the state file of the one upload in `directory/out` records.
  func recordedParts(_ directory: TemporaryDirectory) -> Int {
    let folder = directory.file("out/.haul/uploads")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    guard let name = names.first(where: { $0.hasSuffix(".json") }),
      let object = try? jsonFile(folder + "/" + name)
    else { return 0 }
    return (object["parts"] as? [Any])?.count ?? 0
  }

  /// Starts the upload slowed by `--max-rate`, and SIGKILLs haul once 2 parts are recorded.
  /// The cap makes the whole upload take about 14 s. The watch runs on a thread of its own:
  /// on the cooperative pool, other tests' blocking waits could hold it past the end.
  func uploadAndKill(
    _ arguments: [String], _ directory: TemporaryDirectory, _ env: [String: String]
  ) async throws -> Int {
    let running = try HaulBinary.start(
      arguments + ["--max-rate", "3M"], in: directory, environment: env)
    await whenOffPool(
      { recordedParts(directory) >= 2 || !running.isRunning }, timeout: 60, every: 0.02,
      then: { running.send(SIGKILL) })
    let killed = try await running.finish(timeout: 20)
    #expect(killed.status == SIGKILL, "haul ended before it was killed: \(killed.stderr)")
    return recordedParts(directory)
  }

  /// How many times moto answered an `UploadPart` of each part number 200, in the lines of
  /// its request log `lines`.
  func partsReceived(_ lines: some Sequence<Substring>, key: String) -> [Int: Int] {
    var counts: [Int: Int] = [:]
    for line in lines
    where line.contains("\"PUT /\(Self.bucket)/\(key)?partNumber=") && line.contains("\" 200 ") {
      let number = line.split(separator: "partNumber=")[1].prefix { $0.isNumber }
      counts[Int(number)!, default: 0] += 1
    }
    return counts
  }

  func count(_ moto: MotoFixture, _ fragment: String) -> Int {
    moto.requestLog().split(separator: "\n").filter { $0.contains(fragment) }.count
  }

  @Test(arguments: transports)
  func a_killed_upload_resumes_sending_only_the_missing_parts(transport: String) async throws {
    try await MotoFixture.with(buckets: [Self.bucket]) { moto in
      let directory = try TemporaryDirectory(prefix: "haul-s3-parts")
      defer { directory.remove() }
      try FileManager.default.createDirectory(
        atPath: directory.file("out"), withIntermediateDirectories: true)
      let digest = try TestContent.writeFile(
        at: directory.file("out/big.bin"), seed: 7, count: Self.size)
      let key = "\(transport)/big.bin"
      let manifest = try writeManifest(
        [
          try manifestLine(["url": "s3://\(Self.bucket)/\(key)", "op": "upload", "path": "big.bin"])
        ],
        in: directory)
      let arguments = [
        "run", manifest, "-o", "out", "--s3", "--s3-endpoint", moto.endpoint, "--transport",
        transport, "--multipart-threshold", "5M", "--part-size", "5M", "--events", "--report",
        "report.json",
      ]
      let env = moto.environment(home: directory.path)

      let recorded = try await uploadAndKill(arguments, directory, env)
      #expect(recorded >= 2 && recorded < 9, "killed after \(recorded) parts")

      let rerun = try FaultRun(
        try await HaulBinary.run(arguments, in: directory, environment: env),
        reportIn: directory)

      #expect(rerun.result.status == 0, "\(rerun.result.stderr)")
      #expect(count(moto, "GET /\(Self.bucket)/\(key)?uploadId=") == 1, "one ListParts")
      #expect(count(moto, "POST /\(Self.bucket)/\(key)?uploads=") == 1, "one upload, resumed")
      // What the server held when the rerun asked: the parts moto answered before its
      // ListParts. Read after the rerun, not after the kill: moto writes a line once it has
      // answered, and a part whose body had arrived whole when haul was killed is answered
      // (and held) a moment later.
      let lines = moto.requestLog().split(separator: "\n")
      let listing = try #require(
        lines.firstIndex { $0.contains("GET /\(Self.bucket)/\(key)?uploadId=") })
      let before = partsReceived(lines[..<listing], key: key)
      #expect(before.count >= recorded, "the server held \(before), haul recorded \(recorded)")
      let after = partsReceived(lines, key: key)
      #expect(after.values.allSatisfy { $0 == 1 }, "only parts the server lacked: \(after)")
      #expect(Set(after.keys) == Set(1...9))
      let bytes = (rerun.transfers[1]?["bytes"] as? NSNumber)?.int64Value
      let lacked = (1...9).filter { before[$0] == nil }
      let lackedBytes = lacked.map { $0 == 9 ? Self.size - 8 * Self.part : Self.part }
      #expect(bytes == lackedBytes.reduce(0, +), "\(rerun.describe(1))")
      #expect(!exists(directory.file("out/.haul/uploads")) || recordedParts(directory) == 0)

      try writeManifest(["s3://\(Self.bucket)/\(key)"], named: "back.jsonl", in: directory)
      let back = try await HaulBinary.run(
        [
          "run", "back.jsonl", "-o", "back", "--s3", "--s3-endpoint", moto.endpoint, "-q",
          "--transport", transport,
        ], in: directory, environment: env)
      #expect(back.status == 0, "\(back.stderr)")
      #expect(FileDigest(path: directory.file("back/big.bin"))?.sha256 == digest)
    }
  }

  @Test(arguments: transports)
  func a_multipart_upload_writes_nothing_under_haul_uploads_but_its_state(transport: String)
    async throws
  {
    try await MotoFixture.with(buckets: [Self.bucket]) { moto in
      let directory = try TemporaryDirectory(prefix: "haul-s3-state-only")
      defer { directory.remove() }
      let folder = directory.file("out/.haul/uploads")
      try FileManager.default.createDirectory(
        atPath: folder, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
      try TestContent.writeFile(
        at: directory.file("out/big.bin"), seed: 10, count: 2 * Self.part + 777)
      let manifest = try writeManifest(
        [
          try manifestLine(["url": "s3://\(Self.bucket)/s.bin", "op": "upload", "path": "big.bin"])
        ],
        in: directory)
      let (run, created) = try await FolderCreations.during(folder) {
        try await HaulBinary.run(
          [
            "run", manifest, "-o", "out", "--s3", "--s3-endpoint", moto.endpoint, "--transport",
            transport, "--multipart-threshold", "5M", "--part-size", "5M", "-q",
          ], in: directory, environment: moto.environment(home: directory.path))
      }
      #expect(run.status == 0, "\(run.stderr)")
      #expect(count(moto, "POST /\(Self.bucket)/s.bin?uploadId=") == 1, "completed")
      let states = Set(created.map { $0.hasSuffix(".tmp") ? String($0.dropLast(4)) : $0 })
      #expect(states.count == 1 && states.first?.hasSuffix(".json") == true, "\(created)")
      // The state went with the completed upload, and the folders that held only it.
      #expect(!FileManager.default.fileExists(atPath: directory.file("out/.haul")))
    }
  }

  @Test func a_source_changed_since_the_killed_run_starts_a_new_upload() async throws {
    try await MotoFixture.with(buckets: [Self.bucket]) { moto in
      let directory = try TemporaryDirectory(prefix: "haul-s3-parts-changed")
      defer { directory.remove() }
      try FileManager.default.createDirectory(
        atPath: directory.file("out"), withIntermediateDirectories: true)
      try TestContent.writeFile(at: directory.file("out/big.bin"), seed: 8, count: Self.size)
      let manifest = try writeManifest(
        [
          try manifestLine(["url": "s3://\(Self.bucket)/c.bin", "op": "upload", "path": "big.bin"])
        ],
        in: directory)
      let arguments = [
        "run", manifest, "-o", "out", "--s3", "--s3-endpoint", moto.endpoint,
        "--multipart-threshold", "5M", "--part-size", "5M", "--report", "report.json", "-q",
      ]
      let env = moto.environment(home: directory.path)
      _ = try await uploadAndKill(arguments, directory, env)
      let digest = try TestContent.writeFile(
        at: directory.file("out/big.bin"), seed: 9, count: Self.size)

      let rerun = try await HaulBinary.run(arguments, in: directory, environment: env)

      #expect(rerun.status == 0, "\(rerun.stderr)")
      #expect(count(moto, "POST /\(Self.bucket)/c.bin?uploads=") == 2, "a new upload")
      #expect(count(moto, "DELETE /\(Self.bucket)/c.bin?uploadId=") == 1, "the old one aborted")
      let transfer = try #require(
        (try jsonFile(directory.file("report.json"))["transfers"] as? [[String: Any]])?.first)
      #expect((transfer["bytes"] as? NSNumber)?.int64Value == Self.size, "every part sent anew")
      try writeManifest(["s3://\(Self.bucket)/c.bin"], named: "back.jsonl", in: directory)
      let back = try await HaulBinary.run(
        ["run", "back.jsonl", "-o", "back", "--s3", "--s3-endpoint", moto.endpoint, "-q"],
        in: directory, environment: env)
      #expect(back.status == 0, "\(back.stderr)")
      #expect(FileDigest(path: directory.file("back/c.bin"))?.sha256 == digest)
    }
  }
}
