import Foundation
import HaulTestSupport
import Testing

/// Multipart uploads' parts in parallel straight from the file, and `--abort-incomplete`
/// at the entry's end only: through `S3FaultProxy` (which holds the first parts until
/// several are in flight, and fails completions on purpose) in front of `rclone serve s3`.
@Suite("S3 multipart parts in parallel; --abort-incomplete when the entry gives up", .serialized)
struct S3PartsTests {
  static let bucket = "haul-parts"
  static let part: Int64 = 5 << 20
  static let size: Int64 = 8 * part + 1_234

  /// Writes the source `out/big.bin` and a manifest uploading it to `key`; returns the
  /// source's SHA-256.
  func prepare(_ directory: TemporaryDirectory, key: String) throws -> String {
    try FileManager.default.createDirectory(
      atPath: directory.file("out"), withIntermediateDirectories: true)
    let digest = try TestContent.writeFile(
      at: directory.file("out/big.bin"), seed: 61, count: Self.size)
    try writeManifest(
      [try manifestLine(["url": "s3://\(Self.bucket)/\(key)", "op": "upload", "path": "big.bin"])],
      in: directory)
    return digest
  }

  /// A run through `proxy`; `-j 8` (not `auto`, which starts lower) leaves room for 3 parts.
  func arguments(_ proxy: S3FaultProxy, transport: String, _ more: [String]) -> [String] {
    [
      "run", "manifest.jsonl", "-o", "out", "--s3", "--s3-endpoint", proxy.endpoint,
      "--transport", transport, "--multipart-threshold", "5M", "--part-size", "5M", "-q",
      "--report", "report.json", "-j", "8",
    ] + more
  }

  /// The part numbers the proxy saw answered 200, with how often each.
  func partsSent(_ proxy: S3FaultProxy) -> [Int: Int] {
    var counts: [Int: Int] = [:]
    for request in proxy.requests() where request.method == "PUT" && request.status == 200 {
      guard let query = request.target.split(separator: "?").last,
        let field = query.split(separator: "&").first(where: { $0.hasPrefix("partNumber=") }),
        let number = Int(field.dropFirst("partNumber=".count))
      else { continue }
      counts[number, default: 0] += 1
    }
    return counts
  }

  func count(_ proxy: S3FaultProxy, _ method: String, _ fragment: String) -> Int {
    proxy.requests().filter { $0.method == method && $0.target.contains(fragment) }.count
  }

  @Test(arguments: transports)
  func parts_go_up_part_concurrency_at_once_straight_from_the_file(transport: String)
    async throws
  {
    try await RcloneS3Fixture.with(buckets: [Self.bucket]) { server in
      try await S3FaultProxy.with(upstream: server.port, barrier: 3) { proxy in
        let directory = try TemporaryDirectory(prefix: "haul-s3-parallel")
        defer { directory.remove() }
        let key = "\(transport)/big.bin"
        let digest = try prepare(directory, key: key)
        let run = try await HaulBinary.run(
          arguments(proxy, transport: transport, ["--part-concurrency", "3"]), in: directory,
          environment: server.environment(home: directory.path))
        #expect(run.status == 0, "\(run.stderr)")
        let parts = proxy.requests().filter { $0.method == "PUT" }
        #expect(parts.map(\.partsInFlight).max() == 3, "\(parts.map(\.partsInFlight))")
        #expect(partsSent(proxy) == Dictionary(uniqueKeysWithValues: (1...9).map { ($0, 1) }))
        let stored = FileDigest(path: server.objectPath(bucket: Self.bucket, key: key))
        #expect(stored == FileDigest(length: Self.size, sha256: digest))
        #expect(
          !FileManager.default.fileExists(atPath: directory.file("out/.haul")),
          "nothing is left of the upload's state, its folders included")
      }
    }
  }

  // The rule lives in the scheduler, the same for both transports: curl runs these.
  @Test func a_failed_completion_that_is_retried_keeps_the_upload_with_abort_incomplete()
    async throws
  {
    try await RcloneS3Fixture.with(buckets: [Self.bucket]) { server in
      try await S3FaultProxy.with(upstream: server.port, failedCompletions: 1) { proxy in
        let directory = try TemporaryDirectory(prefix: "haul-s3-complete-once")
        defer { directory.remove() }
        let key = "retried/big.bin"
        let digest = try prepare(directory, key: key)
        let run = try FaultRun(
          try await HaulBinary.run(
            arguments(proxy, transport: "curl", ["--abort-incomplete", "--retries", "2"]),
            in: directory, environment: server.environment(home: directory.path)),
          reportIn: directory)
        #expect(run.result.status == 0, "\(run.describe(1))")
        #expect(run.attempts(1) == 2, "\(run.describe(1))")
        #expect(count(proxy, "DELETE", "uploadId=") == 0, "the upload was not aborted")
        #expect(count(proxy, "POST", "?uploads") == 1, "the retry went on with the same upload")
        #expect(count(proxy, "POST", "?uploadId=") == 2, "completed on the second attempt")
        #expect(partsSent(proxy).values.allSatisfy { $0 == 1 }, "no part was sent twice")
        let stored = FileDigest(path: server.objectPath(bucket: Self.bucket, key: key))
        #expect(stored == FileDigest(length: Self.size, sha256: digest))
      }
    }
  }

  @Test func abort_incomplete_aborts_the_upload_once_the_entry_has_failed_for_good()
    async throws
  {
    try await RcloneS3Fixture.with(buckets: [Self.bucket]) { server in
      try await S3FaultProxy.with(upstream: server.port, failedCompletions: -1) { proxy in
        let directory = try TemporaryDirectory(prefix: "haul-s3-complete-never")
        defer { directory.remove() }
        _ = try prepare(directory, key: "abandoned/big.bin")
        let run = try FaultRun(
          try await HaulBinary.run(
            arguments(proxy, transport: "curl", ["--abort-incomplete", "--retries", "2"]),
            in: directory, environment: server.environment(home: directory.path)),
          reportIn: directory)
        #expect(run.result.status == 1, "\(run.describe(1))")
        #expect(run.attempts(1) == 3, "\(run.describe(1))")
        #expect(run.code(1) == "http_500", "\(run.describe(1))")
        let message = (run.transfers[1]?["error"] as? [String: Any])?["message"] as? String
        #expect(
          message?.hasSuffix("; the multipart upload was aborted") == true, "\(message ?? "")")
        let requests = proxy.requests()
        #expect(requests.filter { $0.method == "DELETE" }.count == 1, "aborted once")
        #expect(requests.last?.method == "DELETE", "after the last completion failed")
        #expect(count(proxy, "POST", "?uploadId=") == 3, "every attempt completed the same upload")
        #expect(count(proxy, "POST", "?uploads") == 1)
        let left =
          (try? FileManager.default.contentsOfDirectory(
            atPath: directory.file("out/.haul/uploads"))) ?? []
        #expect(left.isEmpty, "the state is removed: \(left)")
      }
    }
  }
}
