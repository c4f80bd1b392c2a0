import Foundation
import HaulTestSupport
import Testing

/// A large S3 object comes down in `--segments` ranges, as HTTP downloads do, and is checked
/// against the checksum S3 keeps for it, which only a `HEAD` declares (ranges carry none):
/// through moto, signature checking on, and both transports.
@Suite("S3 downloads in segments, checked against the object's checksum", .serialized)
struct S3SegmentedMotoTests {
  static let bucket = "haul-segments"
  static let size: Int64 = (12 << 20) + 321

  @Test(arguments: transports)
  func a_large_object_comes_down_in_ranges_checked_against_its_checksum(transport: String)
    async throws
  {
    try await MotoFixture.with(buckets: [Self.bucket]) { moto in
      let directory = try TemporaryDirectory(prefix: "haul-s3-segments")
      defer { directory.remove() }
      let digest = try TestContent.writeFile(
        at: directory.file("big.bin"), seed: 81, count: Self.size)
      let key = "\(transport)/big.bin"
      try writeManifest(
        [
          try manifestLine([
            "url": "s3://\(Self.bucket)/\(key)", "op": "upload", "path": "big.bin",
            "sha256": digest,
          ])
        ], named: "up.jsonl", in: directory)
      try writeManifest(["s3://\(Self.bucket)/\(key)"], named: "down.jsonl", in: directory)
      let env = moto.environment(home: directory.path)
      let common = ["--s3", "--s3-endpoint", moto.endpoint, "--transport", transport, "-q"]
      let up = try await HaulBinary.run(
        ["run", "up.jsonl"] + common, in: directory, environment: env)
      #expect(up.status == 0, "\(up.stderr)")

      let down = try FaultRun(
        try await HaulBinary.run(
          [
            "run", "down.jsonl", "-o", "back", "--segments", "4", "--min-segment-size", "1M",
            "-j", "8", "--report", "report.json",
          ] + common, in: directory, environment: env),
        reportIn: directory)
      #expect(down.result.status == 0, "\(down.describe(1))")
      #expect(FileDigest(path: directory.file("back/big.bin"))?.sha256 == digest)
      let verified = down.transfers[1]?["verified"] as? [String]
      #expect(verified?.contains("server:x-amz-checksum-sha256") == true, "\(down.describe(1))")
      let log = moto.requestLog().split(separator: "\n")
      let ranges = log.filter {
        $0.contains("\"GET /\(Self.bucket)/\(key) ") && $0.contains(" 206 ")
      }
      #expect(ranges.count == 5, "the probe and four segments: \(ranges.count)")
      #expect(log.filter { $0.contains("\"HEAD /\(Self.bucket)/\(key) ") }.count == 1)
    }
  }
}
