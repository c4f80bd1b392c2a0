import Foundation
import HaulTestSupport
import Testing

/// `haul run --s3` against a fast real S3 server, `rclone serve s3` (SigV4 checked): objects
/// go up whole and in parts and come back from a listed prefix and by key, byte for byte,
/// through the built binary and both transports. The failure cases are moto's
/// (`S3MotoTests`, `S3MultipartMotoTests`).
@Suite("S3 through rclone serve s3: parts up, prefixes and objects down", .serialized)
struct S3RcloneTests {
  static let bucket = "haul-fast"
  static let part: Int64 = 5 << 20

  @Test(arguments: transports)
  func small_and_multipart_objects_go_up_and_come_back_byte_for_byte(transport: String)
    async throws
  {
    try await RcloneS3Fixture.with(buckets: [Self.bucket]) { server in
      let directory = try TemporaryDirectory(prefix: "haul-s3-rclone")
      defer { directory.remove() }
      try FileManager.default.createDirectory(
        atPath: directory.file("up/small"), withIntermediateDirectories: true)
      var digests: [String: String] = [:]
      var lines: [String] = []
      for index in 0..<5 {
        let name = "small/f\(index).bin"
        digests[name] = try TestContent.writeFile(
          at: directory.file("up/" + name), seed: UInt64(30 + index),
          count: Int64(10_000 + index))
        lines.append(
          try manifestLine([
            "url": "s3://\(Self.bucket)/\(transport)/\(name)", "op": "upload", "path": name,
          ]))
      }
      let bigSize = 3 * Self.part + 4_321
      digests["big.bin"] = try TestContent.writeFile(
        at: directory.file("up/big.bin"), seed: 39, count: bigSize)
      lines.append(
        try manifestLine([
          "url": "s3://\(Self.bucket)/\(transport)/big.bin", "op": "upload", "path": "big.bin",
        ]))
      let upload = try writeManifest(lines, named: "up.jsonl", in: directory)
      let env = server.environment(home: directory.path)
      let common = [
        "--s3", "--s3-endpoint", server.endpoint, "--transport", transport, "-q",
        "--multipart-threshold", "5M", "--part-size", "5M",
      ]
      let put = try await HaulBinary.run(
        ["run", upload, "-o", "up"] + common, in: directory, environment: env)
      #expect(put.status == 0, "\(put.stderr)")
      let stored = FileDigest(
        path: server.objectPath(bucket: Self.bucket, key: "\(transport)/big.bin"))
      #expect(stored == FileDigest(length: bigSize, sha256: digests["big.bin"]!))

      let down = try writeManifest(
        [
          try manifestLine(["url": "s3://\(Self.bucket)/\(transport)/small/", "path": "small/"]),
          "s3://\(Self.bucket)/\(transport)/big.bin",
        ], named: "down.jsonl", in: directory)
      let get = try await HaulBinary.run(
        ["run", down, "-o", "back", "--report", "report.json"] + common, in: directory,
        environment: env)
      #expect(get.status == 0, "\(get.stderr)")
      for (name, digest) in digests {
        #expect(FileDigest(path: directory.file("back/" + name))?.sha256 == digest, "\(name)")
      }
      let transfers = try #require(
        try jsonFile(directory.file("report.json"))["transfers"] as? [[String: Any]])
      #expect(transfers.count == 6, "five listed objects and the big one")
      #expect(transfers.allSatisfy { $0["status"] as? String == "ok" })
    }
  }

  /// rclone answers a range with 200 and a `Content-Range` of exactly that range, the body
  /// being the range's bytes: a segmented download takes it as a 206 and splits.
  @Test(arguments: transports)
  func a_large_object_comes_down_in_ranges_answered_with_200(transport: String) async throws {
    try await RcloneS3Fixture.with(buckets: [Self.bucket]) { server in
      try await S3FaultProxy.with(upstream: server.port) { proxy in
        let directory = try TemporaryDirectory(prefix: "haul-s3-rclone-ranges")
        defer { directory.remove() }
        let key = "\(transport)/ranges.bin"
        let stored = server.objectPath(bucket: Self.bucket, key: key)
        try FileManager.default.createDirectory(
          atPath: (stored as NSString).deletingLastPathComponent,
          withIntermediateDirectories: true)
        let digest = try TestContent.writeFile(at: stored, seed: 47, count: (12 << 20) + 123)
        let down = try writeManifest(
          ["s3://\(Self.bucket)/\(key)"], named: "down.jsonl", in: directory)
        let get = try await HaulBinary.run(
          [
            "run", down, "-o", "back", "--s3", "--s3-endpoint", proxy.endpoint, "--transport",
            transport, "-q", "--segments", "4", "--min-segment-size", "1M", "-j", "8",
          ], in: directory, environment: server.environment(home: directory.path))
        #expect(get.status == 0, "\(get.stderr)")
        #expect(FileDigest(path: directory.file("back/ranges.bin"))?.sha256 == digest)
        let gets = proxy.requests().filter {
          $0.method == "GET" && $0.target.hasPrefix("/\(Self.bucket)/\(key)")
        }
        #expect(gets.count == 5, "the probe and four segments: \(gets)")
        #expect(gets.allSatisfy { $0.status == 200 })
      }
    }
  }

  /// Without `--segments` a large object comes down in the endpoint's 8 ranges; with
  /// `--segments 1`, in one stream.
  @Test(arguments: [([String](), 9), (["--segments", "1"], 1)])
  func a_large_object_comes_down_in_eight_ranges_by_default(options: [String], gets: Int)
    async throws
  {
    try await RcloneS3Fixture.with(buckets: [Self.bucket]) { server in
      try await S3FaultProxy.with(upstream: server.port) { proxy in
        let directory = try TemporaryDirectory(prefix: "haul-s3-rclone-default-ranges")
        defer { directory.remove() }
        let key = "default-\(gets)/ranges.bin"
        let stored = server.objectPath(bucket: Self.bucket, key: key)
        try FileManager.default.createDirectory(
          atPath: (stored as NSString).deletingLastPathComponent,
          withIntermediateDirectories: true)
        let digest = try TestContent.writeFile(at: stored, seed: 48, count: (12 << 20) + 5)
        let down = try writeManifest(
          ["s3://\(Self.bucket)/\(key)"], named: "down.jsonl", in: directory)
        let get = try await HaulBinary.run(
          [
            "run", down, "-o", "back", "--s3", "--s3-endpoint", proxy.endpoint, "-q",
            "--min-segment-size", "1M", "-j", "16",
          ] + options, in: directory, environment: server.environment(home: directory.path))
        #expect(get.status == 0, "\(get.stderr)")
        #expect(FileDigest(path: directory.file("back/ranges.bin"))?.sha256 == digest)
        let sent = proxy.requests().filter {
          $0.method == "GET" && $0.target.hasPrefix("/\(Self.bucket)/\(key)")
        }
        #expect(sent.count == gets, "\(sent)")
      }
    }
  }
}
