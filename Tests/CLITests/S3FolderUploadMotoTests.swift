import Foundation
import HaulTestSupport
import Testing

/// A local folder uploaded to `s3://BUCKET/DIR/` under `--s3`, against moto, through the
/// built binary and both transports: every regular file becomes the key of its path below
/// the prefix, and no `MKCOL` is sent.
///
/// moto refuses haul's signed requests for keys with non-ASCII letters or reserved
/// characters other than space (it checks a signature over the path it decoded, see
/// `S3MotoTests`), so those names go up with signature checking off; their signatures are
/// the signer's, proven against botocore by `SigV4SignerBotocoreTests`.
@Suite("S3 folder uploads through moto: keys below the prefix", .serialized)
struct S3FolderUploadMotoTests {
  static let bucket = "haul-folder-up"

  /// Writes `paths` below `out/site/`, each with its own content, and returns their digests.
  func writeTree(_ paths: [String], in directory: TemporaryDirectory) throws -> [String: String] {
    var sent: [String: String] = [:]
    for (index, path) in paths.enumerated() {
      let full = directory.file("out/site/" + path)
      try FileManager.default.createDirectory(
        atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      sent[path] = try TestContent.writeFile(
        at: full, seed: UInt64(index + 1), count: Int64(1_000 + index * 50_000))
    }
    return sent
  }

  /// Uploads `out/site/` to `s3://BUCKET/PREFIX` with `extra` arguments, and returns the
  /// run and the arguments that reach moto as this run did.
  func upload(
    to prefix: String, with moto: MotoFixture, transport: String, extra: [String] = [],
    in directory: TemporaryDirectory
  ) async throws -> (result: HaulResult, common: [String], env: [String: String]) {
    try writeManifest(
      [
        try manifestLine([
          "op": "upload", "path": "site/", "url": "s3://\(Self.bucket)/\(prefix)",
        ])
      ], in: directory)
    let env = moto.environment(home: directory.path)
    let common = ["--s3", "--s3-endpoint", moto.endpoint, "--transport", transport]
    let result = try await HaulBinary.run(
      ["run", "manifest.jsonl", "-o", "out"] + extra + common, in: directory, environment: env)
    return (result, common, env)
  }

  @Test(arguments: transports)
  func every_regular_file_goes_up_signed_as_the_key_of_its_path_below_the_prefix(
    transport: String
  ) async throws {
    try await MotoFixture.with(buckets: [Self.bucket]) { moto in
      let directory = try TemporaryDirectory(prefix: "haul-s3-folder-up")
      defer { directory.remove() }
      let out = directory.file("out")
      let paths = ["plain.txt", "with space.bin", "sub/b.txt", "sub/deeper/c d.bin"]
      let sent = try writeTree(paths, in: directory)
      try TestContent.writeFile(at: out + "/outside.txt", seed: 9, count: 10)
      try FileManager.default.createSymbolicLink(
        atPath: out + "/site/leads-out", withDestinationPath: "../outside.txt")
      try FileManager.default.createDirectory(
        atPath: out + "/site/empty", withIntermediateDirectories: true)
      let prefix = "\(transport)/pub/"

      let (up, common, env) = try await upload(
        to: prefix, with: moto, transport: transport, extra: ["--report", "report.json"],
        in: directory)

      #expect(up.status == 0, "\(up.stderr)")
      let transfers = try #require(
        try jsonFile(directory.file("report.json"))["transfers"] as? [[String: Any]])
      #expect(transfers.count == paths.count, "\(transfers)")
      #expect(transfers.allSatisfy { $0["status"] as? String == "ok" }, "\(transfers)")
      let log = moto.requestLog()
      #expect(!log.contains("MKCOL"), "an object store gets no MKCOL")
      #expect(!log.contains("leads-out"), "a link out of the folder is not sent")

      // Each key comes back, through signed GETs, as the file it was.
      let back = try writeManifest(
        try paths.map { path in
          try manifestLine([
            "url": "s3://\(Self.bucket)/\(prefix)\(path)", "path": "back/" + path,
          ])
        }, named: "back.jsonl", in: directory)
      let down = try await HaulBinary.run(
        ["run", back, "-o", "."] + common, in: directory, environment: env)
      #expect(down.status == 0, "\(down.stderr)")
      for (path, sha) in sent {
        #expect(FileDigest(path: directory.file("back/" + path))?.sha256 == sha, "\(path)")
      }
    }
  }

  @Test(arguments: transports)
  func names_with_non_ascii_letters_and_reserved_characters_become_exactly_those_keys(
    transport: String
  ) async throws {
    try await MotoFixture.with(buckets: [Self.bucket], checksSignatures: false) { moto in
      let directory = try TemporaryDirectory(prefix: "haul-s3-folder-up-names")
      defer { directory.remove() }
      let paths = [
        "ünïcödé.txt", "日本語/名前 with space.bin", "100%.bin", "hash#1.txt", "what?.txt",
        "a+b=c&d.txt", "deep/er/still/x.txt",
      ]
      let sent = try writeTree(paths, in: directory)
      let prefix = "\(transport)/names/"

      let (up, common, env) = try await upload(
        to: prefix, with: moto, transport: transport, in: directory)

      #expect(up.status == 0, "\(up.stderr)")

      // The prefix listed back holds exactly these keys, each the file it was.
      try writeManifest(
        [try manifestLine(["url": "s3://\(Self.bucket)/\(prefix)", "path": "back/"])],
        named: "back.jsonl", in: directory)
      let down = try await HaulBinary.run(
        ["run", "back.jsonl", "-o", "."] + common, in: directory, environment: env)
      #expect(down.status == 0, "\(down.stderr)")
      var found: Set<String> = []
      let back = directory.file("back")
      if let walk = FileManager.default.enumerator(atPath: back) {
        for case let path as String in walk {
          var isFolder: ObjCBool = false
          if FileManager.default.fileExists(atPath: back + "/" + path, isDirectory: &isFolder),
            !isFolder.boolValue
          {
            found.insert(path)
          }
        }
      }
      #expect(found == Set(paths), "\(found)")
      for (path, sha) in sent {
        #expect(FileDigest(path: back + "/" + path)?.sha256 == sha, "\(path)")
      }
    }
  }
}
