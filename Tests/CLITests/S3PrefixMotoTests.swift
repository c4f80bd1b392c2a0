import Foundation
import HaulTestSupport
import Testing

/// `s3://BUCKET/DIR/` manifest lines against moto, through the built binary and both
/// transports: every object under the prefix, page by page, into the line's folder; keys
/// that would leave it refused; a listing that fails told on its line.
///
/// moto's signature checking stays off here: moto checks a signature over the query as it
/// decoded it (`prefix=dir/`), so it refuses botocore's own `ListObjectsV2` of `dir/` as
/// well as haul's (both sign `prefix=dir%2F`, as S3 asks). The listing's signature is the
/// signer's, proven against botocore by `SigV4SignerBotocoreTests`.
@Suite("S3 prefixes through moto: listed page by page", .serialized)
struct S3PrefixMotoTests {
  static let bucket = "haul-list"

  func contents(_ path: String) -> String? {
    try? String(contentsOfFile: path, encoding: .utf8)
  }

  @Test(arguments: transports)
  func a_prefix_downloads_every_object_under_it_page_by_page(transport: String) async throws {
    // 23 objects at 5 keys a page: five pages, the last one short.
    let listed =
      (0..<20).map { "set/\(String(format: "%02d", $0)).txt" }
      + ["set/deep/er/file.bin", "set/with space.txt", "set/ünï.txt"]
    let others = ["set/../escape.txt", "set/folder/", "settled.txt", "other/not-listed.txt"]
    try await MotoFixture.with(
      buckets: [Self.bucket], objects: (listed + others).map { (Self.bucket, $0) },
      checksSignatures: false
    ) { moto in
      let directory = try TemporaryDirectory(prefix: "haul-s3-prefix")
      defer { directory.remove() }
      let manifest = try writeManifest(
        [
          try manifestLine(["url": "s3://\(Self.bucket)/set/", "path": "dir/"]),
          try manifestLine(["url": "s3://no-such-bucket/set/", "path": "gone/"]),
        ], in: directory)
      let arguments = [
        "run", manifest, "-o", "out", "--s3", "--s3-endpoint", moto.endpoint,
        "--s3-page-size", "5", "--transport", transport, "--report", "report.json",
        "--events", "--failed", "failed.jsonl",
      ]
      let env = moto.environment(home: directory.path)

      let first = try FaultRun(
        try await HaulBinary.run(arguments, in: directory, environment: env),
        reportIn: directory)

      #expect(first.result.status == 1, "\(first.result.stderr)")
      for key in listed {
        let path = directory.file("out/dir/" + key.dropFirst("set/".count))
        #expect(contents(path) == key + "\n", "\(key) landed at \(path)")
      }
      #expect(!exists(directory.file("out/escape.txt")))
      #expect(!exists(directory.file("escape.txt")))
      #expect(!exists(directory.file("out/dir/folder")), "a folder marker is no file")
      #expect(!exists(directory.file("out/dir/not-listed.txt")))
      #expect(!exists(directory.file("out/tled.txt")), "settled.txt is not under set/")
      let report = try jsonFile(directory.file("report.json"))
      let transfers = try #require(report["transfers"] as? [[String: Any]])
      func error(_ transfer: [String: Any]) -> String? {
        (transfer["error"] as? [String: Any])?["code"] as? String
      }
      #expect(transfers.filter { $0["status"] as? String == "ok" }.count == listed.count)
      let refused = transfers.filter { error($0) == "path_refused" }
      #expect(refused.count == 1, "\(transfers)")
      #expect(refused.first?["line"] as? Int == 1)
      let gone = transfers.filter { $0["line"] as? Int == 2 }
      #expect(gone.count == 1)
      #expect(gone.first.flatMap(error) == "http_404", "\(gone)")
      let failed = try #require(contents(directory.file("failed.jsonl")))
      #expect(failed.contains("escape.txt"), "the refused object's own line")
      #expect(failed.contains("no-such-bucket"))

      // A rerun lists again and finds every object in place at its listed size.
      let second = try await HaulBinary.run(arguments, in: directory, environment: env)
      #expect(second.status == 1)
      let again = try #require(
        try jsonFile(directory.file("report.json"))["transfers"] as? [[String: Any]])
      #expect(again.filter { $0["status"] as? String == "skipped" }.count == listed.count)
    }
  }

  @Test func a_prefix_of_2500_objects_spans_three_pages_of_1000() async throws {
    let keys = (0..<2500).map { "many/\($0 % 10)/object-\($0).txt" }
    try await MotoFixture.with(
      buckets: [Self.bucket], objects: keys.map { (Self.bucket, $0) }, checksSignatures: false
    ) { moto in
      let directory = try TemporaryDirectory(prefix: "haul-s3-prefix-2500")
      defer { directory.remove() }
      let manifest = try writeManifest(["s3://\(Self.bucket)/many/"], in: directory)

      let result = try await HaulBinary.run(
        [
          "run", manifest, "-o", "out", "--s3", "--s3-endpoint", moto.endpoint, "-q",
          "--report", "report.json",
        ], in: directory, environment: moto.environment(home: directory.path))

      #expect(result.status == 0, "\(result.stderr)")
      let transfers = try #require(
        try jsonFile(directory.file("report.json"))["transfers"] as? [[String: Any]])
      #expect(transfers.count == keys.count)
      for key in keys.prefix(3) + keys.suffix(3) {
        #expect(contents(directory.file("out/" + key.dropFirst("many/".count))) == key + "\n")
      }
    }
  }
}
