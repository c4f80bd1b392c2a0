import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// HTTP/2 over TLS against nginx with a throwaway certificate trusted through `--cacert`.
/// The curl transport only: URLSession on Linux cannot trust an extra CA (refused at start, see
/// TransportLimitTests), and
/// cleartext h2c is never used (libcurl 7.88 fails on reused h2c connections, curl #10634).
@Suite("HTTP/2 over TLS, through the built binary")
struct HTTP2Tests {
  /// Writes `count` files of `size` bytes under nginx's `root/<folder>/` and a manifest of
  /// their https URLs; returns the files' digests by name.
  static func serve(
    _ count: Int, of size: Int64, under folder: String, from nginx: NginxFixture,
    in directory: TemporaryDirectory
  ) throws -> [String: String] {
    var digests: [String: String] = [:]
    var lines: [String] = []
    for index in 0..<count {
      let name = "f\(index).bin"
      digests[name] = try nginx.createFile(
        "\(folder)/\(name)", size: size, seed: UInt64(120 + index))
      lines.append(
        try manifestLine([
          "url": nginx.httpsURL("/\(folder)/\(name)").absoluteString, "path": name, "size": size,
          "sha256": digests[name]!,
        ]))
    }
    try writeManifest(lines, in: directory)
    return digests
  }

  @Test func an_h2_server_gets_one_multiplexed_connection_and_exact_bytes() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-h2")
    defer { directory.remove() }
    try await NginxFixture.with(tls: true, http2: true) { nginx in
      // Eight files sent at 1 MB/s each (a quarter of a second apiece) and one larger one.
      var digests = try Self.serve(8, of: 256 << 10, under: "slow", from: nginx, in: directory)
      let big = try nginx.createFile("big.bin", size: 8 << 20, seed: 130)
      digests["big.bin"] = big
      let manifest = try String(contentsOfFile: directory.file("manifest.jsonl"), encoding: .utf8)
      try
        (manifest
        + (try manifestLine([
          "url": nginx.httpsURL("/big.bin").absoluteString, "path": "big.bin", "sha256": big,
        ])) + "\n").write(
          toFile: directory.file("manifest.jsonl"), atomically: true, encoding: .utf8)

      let result = try await HaulBinary.run(
        [
          "run", "manifest.jsonl", "-o", "out", "-j", "8", "--transport", "curl", "--cacert",
          nginx.certificatePath!, "-q", "--report", "report.json", "--loops", "1",
        ], in: directory)

      // (Each loop keeps its own connections: with one loop, all streams share one.)
      #expect(result.status == 0, "\(result.stderr)")
      for (name, digest) in digests {
        #expect(FileDigest(path: directory.file("out/\(name)"))?.sha256 == digest, "\(name)")
      }
      let transfers = try #require(
        try jsonFile(directory.file("report.json"))["transfers"] as? [[String: Any]])
      #expect(transfers.allSatisfy { $0["attempts"] as? Int == 1 }, "\(transfers)")
      let log = nginx.timingLog(atLeast: 9)
      #expect(log.count >= 9)
      #expect(log.allSatisfy { $0.version == "HTTP/2.0" }, "\(log.map(\.version))")
      // Multiplexed: one connection carried streams that were in flight together.
      #expect(Set(log.map(\.connection)).count == 1, "\(log.map(\.connection))")
      #expect(TimedRequest.maxOverlap(log.filter { $0.uri.hasPrefix("/slow/") }) >= 4)
    }
  }

  @Test func many_small_files_over_h2_each_succeed_at_the_first_attempt() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-h2-small")
    defer { directory.remove() }
    try await NginxFixture.with(tls: true, http2: true) { nginx in
      let digests = try Self.serve(48, of: 4096, under: "small", from: nginx, in: directory)

      // No retries: an exchange that fails before it starts (as on an easy handle reused
      // after an HTTP/2 transfer, which libcurl 7.88 refuses to configure) fails the run.
      let result = try await HaulBinary.run(
        [
          "run", "manifest.jsonl", "-o", "out", "-j", "4", "--transport", "curl", "--cacert",
          nginx.certificatePath!, "-q", "--retries", "0",
        ], in: directory)

      #expect(result.status == 0, "\(result.stderr)")
      for (name, digest) in digests {
        #expect(FileDigest(path: directory.file("out/\(name)"))?.sha256 == digest, "\(name)")
      }
      #expect(nginx.timingLog(atLeast: 48).allSatisfy { $0.version == "HTTP/2.0" })
    }
  }

  @Test func an_https_server_without_h2_still_gets_parallel_connections() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-h1")
    defer { directory.remove() }
    try await NginxFixture.with(tls: true, http2: false) { nginx in
      let digests = try Self.serve(8, of: 256 << 10, under: "slow", from: nginx, in: directory)

      let result = try await HaulBinary.run(
        [
          "run", "manifest.jsonl", "-o", "out", "-j", "8", "--transport", "curl", "--cacert",
          nginx.certificatePath!, "-q",
        ], in: directory)

      #expect(result.status == 0, "\(result.stderr)")
      for (name, digest) in digests {
        #expect(FileDigest(path: directory.file("out/\(name)"))?.sha256 == digest, "\(name)")
      }
      // CURLOPT_PIPEWAIT waits for the first connection to say whether it multiplexes; once
      // it says HTTP/1.1, the others open their own connections in parallel.
      let log = nginx.timingLog(atLeast: 8)
      #expect(log.allSatisfy { $0.version == "HTTP/1.1" })
      #expect(Set(log.map(\.connection)).count >= 4, "\(log.map(\.connection))")
      #expect(TimedRequest.maxOverlap(log) >= 4, "\(log.map { ($0.start, $0.end) })")
    }
  }
}
