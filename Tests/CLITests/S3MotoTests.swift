import Foundation
import HaulTestSupport
import Testing

/// `haul run --s3` against a real S3 API server (moto, signature checking on), through the
/// built binary and both transports.
@Suite("S3 through moto: signed PUT and GET", .serialized)
struct S3MotoTests {
  static let bucket = "haul-test"

  @Test(arguments: transports)
  func objects_go_up_and_come_back_byte_for_byte(transport: String) async throws {
    try await MotoFixture.with(buckets: [Self.bucket]) { moto in
      let directory = try TemporaryDirectory(prefix: "haul-s3")
      defer { directory.remove() }
      // moto checks signatures over its decoded path, so it refuses even botocore's own
      // requests for keys with reserved characters other than space: those keys are
      // proven by SigV4SignerBotocoreTests instead.
      let keys = ["plain.bin", "dir/with space.bin", "nested/a/b/c.bin"]
      var digests: [String] = []
      var lines: [String] = []
      for (index, key) in keys.enumerated() {
        let name = "up\(index).bin"
        digests.append(
          try TestContent.writeFile(
            at: directory.file(name), seed: UInt64(index + 1), count: Int64(200_000 + index)))
        lines.append(
          try manifestLine([
            "url": "s3://\(Self.bucket)/\(transport)/\(key)", "op": "upload", "path": name,
          ]))
      }
      let upload = try writeManifest(lines, named: "up.jsonl", in: directory)
      let env = moto.environment(home: directory.path)
      let common = ["--s3", "--s3-endpoint", moto.endpoint, "--transport", transport, "-q"]
      let put = try await HaulBinary.run(
        ["run", upload] + common, in: directory, environment: env)
      #expect(put.status == 0, "\(put.stderr)")

      let down = try writeManifest(
        keys.map { "s3://\(Self.bucket)/\(transport)/\($0)" }, named: "down.jsonl",
        in: directory)
      let get = try await HaulBinary.run(
        ["run", down, "-o", "back", "--report", "report.json"] + common, in: directory,
        environment: env)
      #expect(get.status == 0, "\(get.stderr)")
      for (index, key) in keys.enumerated() {
        let name = String(key.split(separator: "/").last!)
        let back = FileDigest(path: directory.file("back/\(name)"))
        #expect(back?.sha256 == digests[index], "\(key) came back as it went up")
      }
      let transfers = try #require(
        try jsonFile(directory.file("report.json"))["transfers"] as? [[String: Any]])
      #expect(transfers.count == keys.count)
      #expect(transfers.allSatisfy { $0["status"] as? String == "ok" })
    }
  }

  @Test(arguments: transports)
  func a_wrong_secret_fails_with_http_403_and_no_secret_in_any_output(transport: String)
    async throws
  {
    try await MotoFixture.with(buckets: [Self.bucket]) { moto in
      let directory = try TemporaryDirectory(prefix: "haul-s3-403")
      defer { directory.remove() }
      let wrong = "WRONG-\(moto.secretAccessKey.prefix(8))-not-the-secret"
      try TestContent.writeFile(at: directory.file("up.bin"), seed: 9, count: 1000)
      let manifest = try writeManifest(
        [
          try manifestLine(["url": "s3://\(Self.bucket)/k.bin", "op": "upload", "path": "up.bin"]),
          "s3://\(Self.bucket)/missing.bin",
        ], in: directory)
      let result = try await HaulBinary.run(
        [
          "run", manifest, "--s3", "--s3-endpoint", moto.endpoint, "--transport", transport,
          "--events", "--report", "report.json", "--failed", "failed.jsonl", "--retries", "1",
        ], in: directory, environment: moto.environment(home: directory.path, secret: wrong))
      #expect(result.status == 1)
      let transfers = try #require(
        try jsonFile(directory.file("report.json"))["transfers"] as? [[String: Any]])
      #expect(transfers.count == 2)
      for transfer in transfers {
        #expect((transfer["error"] as? [String: Any])?["code"] as? String == "http_403")
        #expect(transfer["attempts"] as? Int == 1, "a 403 is not retried")
      }
      let report = try String(contentsOfFile: directory.file("report.json"), encoding: .utf8)
      let failed = try String(contentsOfFile: directory.file("failed.jsonl"), encoding: .utf8)
      #expect(failed.split(separator: "\n").count == 2)
      for text in [result.stdout, result.stderr, report, failed] {
        #expect(!text.contains(wrong), "the secret is never printed")
        #expect(!text.contains("Signature="), "nor the signature")
        #expect(!text.contains(moto.secretAccessKey))
      }
    }
  }

  @Test(arguments: transports)
  func a_manifest_sha256_goes_up_as_x_amz_checksum_and_is_checked_coming_back(transport: String)
    async throws
  {
    try await MotoFixture.with(buckets: [Self.bucket]) { moto in
      let directory = try TemporaryDirectory(prefix: "haul-s3-checksum")
      defer { directory.remove() }
      let digest = try TestContent.writeFile(at: directory.file("up.bin"), seed: 4, count: 70_000)
      let wrong = String(repeating: "ab", count: 32)
      let key = "\(transport)/sum.bin"
      let upload = try writeManifest(
        [
          try manifestLine([
            "url": "s3://\(Self.bucket)/\(key)", "op": "upload", "path": "up.bin",
            "sha256": digest,
          ]),
          try manifestLine([
            "url": "s3://\(Self.bucket)/\(transport)/wrong.bin", "op": "upload",
            "path": "up.bin", "sha256": wrong,
          ]),
        ], named: "up.jsonl", in: directory)
      let env = moto.environment(home: directory.path)
      let common = ["--s3", "--s3-endpoint", moto.endpoint, "--transport", transport]
      let put = try FaultRun(
        try await HaulBinary.run(
          ["run", upload, "--report", "report.json", "--retries", "0"] + common, in: directory,
          environment: env), reportIn: directory)
      #expect(put.status(1) == "ok", "\(put.describe(1))")
      // S3 refuses a body that differs from its checksum (400 BadDigest); moto stores the
      // checksum unchecked, so the wrong one shows when the object comes back.
      #expect(put.status(2) == "ok", "\(put.describe(2))")

      let down = try writeManifest(
        ["s3://\(Self.bucket)/\(key)", "s3://\(Self.bucket)/\(transport)/wrong.bin"],
        named: "down.jsonl", in: directory)
      let get = try FaultRun(
        try await HaulBinary.run(
          ["run", down, "-o", "back", "--report", "report.json"] + common, in: directory,
          environment: env), reportIn: directory)
      #expect(get.status(1) == "ok", "\(get.describe(1))")
      let verified = get.transfers[1]?["verified"] as? [String]
      #expect(verified?.contains("server:x-amz-checksum-sha256") == true, "\(get.describe(1))")
      #expect(get.code(2) == "checksum_mismatch", "\(get.describe(2))")
    }
  }
}
