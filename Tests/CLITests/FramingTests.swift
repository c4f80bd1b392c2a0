import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// Responses framed so that no length can be trusted fail with `protocol` as the user sees
/// it, through the built binary and both transports, whether the manifest gives a `size` or
/// not, and leave nothing at the destination.
@Suite("Untrustworthy framing is protocol, end to end")
struct FramingTests {
  let directory: TemporaryDirectory
  let server: FaultServer

  init() throws {
    directory = try TemporaryDirectory(prefix: "haul-framing")
    server = try FaultServer.started()
  }

  func cleanUp() {
    server.stop()
    directory.remove()
  }

  /// RFC 9112 §6.3: a message with both `Content-Length` and `Transfer-Encoding` ought to be
  /// handled as an error; with a `size`, it must not pass for a `size_mismatch`.
  @Test(arguments: transports)
  func content_length_beside_chunked_is_protocol_with_and_without_size(transport: String)
    async throws
  {
    defer { cleanUp() }
    let lines = [
      try dataLine(
        server, "sized", size: 1000, seed: 5, options: ["chunked": "1", "lengths": "10"]),
      try dataLine(
        server, "unsized", size: 1000, seed: 6, options: ["chunked": "1", "lengths": "1000"],
        declareSize: false, declareDigest: false),
    ]
    try writeManifest(lines, in: directory)

    let run = try FaultRun(
      try await HaulBinary.run(runArguments(transport, ["--retries", "1"]), in: directory),
      reportIn: directory)

    #expect(run.result.status == 1, "\(run.result.stderr)")
    for line in 1...2 {
      #expect(run.code(line) == "protocol", "\(run.describe(line))")
      #expect(run.attempts(line) == 2, "\(run.describe(line))")
    }
    #expect(!exists(directory.file("out/sized.bin")))
    #expect(!exists(directory.file("out/unsized.bin")))
  }

  /// One 300 KiB header line, over libcurl's 100 KiB limit for a line, whichever transport
  /// drives libcurl: `protocol`, not an out-of-memory `connection` failure.
  @Test(arguments: transports)
  func a_300_kib_header_line_is_protocol(transport: String) async throws {
    defer { cleanUp() }
    try writeManifest(
      [try dataLine(server, "longline", size: 100, seed: 7, options: ["headerLine": "307200"])],
      in: directory)

    let run = try FaultRun(
      try await HaulBinary.run(runArguments(transport, ["--retries", "1"]), in: directory),
      reportIn: directory)

    #expect(run.result.status == 1, "\(run.result.stderr)")
    #expect(run.code(1) == "protocol", "\(run.describe(1))")
    #expect(run.attempts(1) == 2, "\(run.describe(1))")
    #expect(!exists(directory.file("out/longline.bin")))
  }

  /// A chunked body whose trailer fields come unannounced: exact bytes through curl; through
  /// URLSession, corelibs 6.3 stops the process at that transfer's end (exit by signal, no
  /// report), and the report's spool keeps every entry that ended before it.
  @Test(arguments: transports)
  func a_crash_on_unannounced_trailers_leaves_the_entries_before_it_in_the_spool(
    transport: String
  ) async throws {
    defer { cleanUp() }
    var lines = try (0..<3).map { index in
      try dataLine(server, "before\(index)", size: 1000, seed: UInt64(20 + index))
    }
    lines.append(
      try dataLine(
        server, "trailers", size: 300_000, seed: 8,
        options: ["chunked": "1", "trailers": "unannounced"]))
    try writeManifest(lines, in: directory)

    let result = try await HaulBinary.run(
      runArguments(transport, ["-j", "1", "--retries", "0"]), in: directory)

    if transport == "curl" {
      #expect(result.status == 0, "\(result.stderr)")
      #expect(holdsContent(directory.file("out/trailers.bin"), seed: 8, size: 300_000))
      #expect(!exists(directory.file("report.json.spool")))
    } else {
      #expect(![0, 1, 2].contains(result.status), "haul did not crash: \(result.stderr)")
      #expect(!exists(directory.file("report.json")))
      let text = try String(
        contentsOfFile: directory.file("report.json.spool"), encoding: .utf8)
      let entries = try text.split(separator: "\n").map { try jsonObject(String($0)) }
      #expect(entries.compactMap { $0["line"] as? Int }.sorted() == [1, 2, 3], "\(text)")
      #expect(entries.allSatisfy { $0["status"] as? String == "ok" }, "\(text)")
    }
  }
}
