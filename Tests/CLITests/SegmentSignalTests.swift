import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// A segmented download that must start over, and a probe that learns the server ignores
/// ranges, are decisions inside one attempt: the run succeeds, and neither shows as a code
/// (nor a retry) in the report or the events.
@Suite("Segment restarts and ignored ranges stay out of the report and the events")
struct SegmentSignalTests {
  let directory: TemporaryDirectory
  let server: FaultServer

  init() throws {
    directory = try TemporaryDirectory(prefix: "haul-cli-segment-signals")
    server = try FaultServer.started()
  }

  func cleanUp() {
    server.stop()
    directory.remove()
  }

  /// The codes the report and the events may carry, besides `http_<status>`.
  static let documentedCodes: Set<String> = [
    "size_mismatch", "checksum_mismatch", "auth", "timeout", "connection", "proxy", "tls",
    "protocol", "redirect_refused", "path_refused", "disk_full", "io", "cancelled",
  ]

  @Test(arguments: transports)
  func restarts_and_ignored_ranges_succeed_in_one_attempt_without_a_code(transport: String)
    async throws
  {
    defer { cleanUp() }
    let size: Int64 = 16 << 20
    // Line 1: from the fourth request on the server has a new version, and answers the
    // segments still to come with a whole 200 (If-Range no longer matches). Line 2: the
    // same, but the server ignores If-Range and sends ranges of the new version. Line 3:
    // the server ignores ranges, so the probe gets a 200.
    let urls = [
      server.dataURL("whole200", size: size, seed: 81, options: ["changeAfter": "3"]),
      server.dataURL(
        "spliced", size: size, seed: 82, options: ["changeAfter": "3", "ignoreIfRange": "1"]),
      server.dataURL("norange", size: size, seed: 83, options: ["ignoreRange": "1"]),
    ]
    let seeds = [
      FaultServer.changingSeed(81, hit: 1), FaultServer.changingSeed(82, hit: 1), 83,
    ]
    var lines: [String] = []
    for (index, url) in urls.enumerated() {
      let sha = await SegmentTests.sha256(seed: seeds[index], count: size)
      lines.append(
        try manifestLine(["url": url.absoluteString, "path": "\(index + 1).bin", "sha256": sha]))
    }
    try writeManifest(lines, in: directory)

    let run = try FaultRun(
      try await HaulBinary.run(
        [
          "run", "manifest.jsonl", "-o", "out", "--segments", "4", "--min-segment-size", "1M",
          "--transport", transport, "--events", "--report", "report.json",
        ], in: directory),
      reportIn: directory)

    #expect(run.result.status == 0, "\(run.result.stderr)")
    for line in 1...3 {
      #expect(run.status(line) == "ok", "\(run.describe(line))")
      #expect(run.attempts(line) == 1, "\(run.describe(line))")
      #expect(run.retries(line).isEmpty, "\(run.retries(line))")
    }
    // Each round of segments began with a probe: two rounds for the changed files, and the
    // probe then one plain GET for the server without ranges.
    for name in ["whole200", "spliced"] {
      let probes = server.requests(pathPrefix: "/data/\(name)").filter {
        $0.value(for: "Range") == "bytes=0-0"
      }
      #expect(probes.count == 2, "\(name)")
    }
    #expect(
      server.requests(pathPrefix: "/data/norange").map { $0.value(for: "Range") }
        == ["bytes=0-0", nil])
    let report = try jsonFile(directory.file("report.json"))
    let codes = Self.codes(in: report) + run.events.flatMap { Self.codes(in: $0) }
    #expect(
      codes.allSatisfy { Self.documentedCodes.contains($0) || $0.hasPrefix("http_") },
      "\(codes)")
    for word in ["\"restart\"", "\"probe_whole_body\""] {
      #expect(!run.result.stdout.contains(word))
      #expect(
        !(try String(contentsOfFile: directory.file("report.json"), encoding: .utf8))
          .contains(word))
    }
  }

  /// Every value of a `code` key anywhere in `json`.
  static func codes(in json: Any) -> [String] {
    if let object = json as? [String: Any] {
      let own = (object["code"] as? String).map { [$0] } ?? []
      return own + object.values.flatMap { codes(in: $0) }
    }
    if let array = json as? [Any] { return array.flatMap { codes(in: $0) } }
    return []
  }
}
