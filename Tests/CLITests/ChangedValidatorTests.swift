import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// A resume trusts only the version it started: a server that ignores `If-Range` and
/// answers a range of a newer version with 206 must not get its bytes spliced onto the old
/// prefix. The file starts over and ends as exactly the server's current bytes.
@Suite("A 206 of another version restarts the file, end to end")
struct ChangedValidatorTests {
  let directory: TemporaryDirectory
  let server: FaultServer

  init() throws {
    directory = try TemporaryDirectory(prefix: "haul-cli-validator")
    server = try FaultServer.started()
  }

  func cleanUp() {
    server.stop()
    directory.remove()
  }

  @Test(arguments: transports)
  func a_resume_answered_with_a_range_of_a_new_version_restarts_from_zero(transport: String)
    async throws
  {
    defer { cleanUp() }
    let size: Int64 = 300_000
    // The first request is cut after 100,000 bytes; from the second on the server has a
    // new version of the same size and answers ranges whatever If-Range says.
    let options = [
      "drop": "100000", "times": "1", "changeAfter": "1", "ignoreIfRange": "1",
    ]
    try writeManifest(
      [
        try dataLine(
          server, "moved", size: size, seed: 95, options: options, declareDigest: false)
      ], in: directory)

    let run = try FaultRun(
      try await HaulBinary.run(runArguments(transport, ["--retries", "2"]), in: directory),
      reportIn: directory)

    #expect(run.result.status == 0, "\(run.result.stderr)")
    #expect(run.status(1) == "ok", "\(run.describe(1))")
    let newSeed = FaultServer.changingSeed(95, hit: 1)
    #expect(holdsContent(directory.file("out/moved.bin"), seed: newSeed, size: size))
    let records = server.requests(pathPrefix: "/data/moved")
    #expect(records.map(\.status) == [200, 206, 200], "\(records.map(\.status))")
    #expect(records.last?.value(for: "Range") == nil)
  }

  @Test(arguments: transports)
  func segments_answered_with_ranges_of_a_new_version_restart_from_a_new_probe(
    transport: String
  ) async throws {
    defer { cleanUp() }
    let size: Int64 = 16 << 20
    // The probe and two segments see the first version; the other two get ranges of the
    // second, because the server ignores If-Range.
    let url = server.dataURL(
      "moving", size: size, seed: 96, options: ["changeAfter": "3", "ignoreIfRange": "1"])
    try writeManifest(
      [try manifestLine(["url": url.absoluteString, "path": "moving.bin"])], in: directory)

    let result = try await HaulBinary.run(
      [
        "run", "manifest.jsonl", "-o", "out", "--segments", "4", "--min-segment-size", "1M",
        "--transport", transport, "-q", "--report", "report.json",
      ], in: directory)

    #expect(result.status == 0, "\(result.stderr)")
    let newSeed = FaultServer.changingSeed(96, hit: 1)
    #expect(holdsContent(directory.file("out/moving.bin"), seed: newSeed, size: size))
    let records = server.requests(pathPrefix: "/data/moving")
    #expect(records.filter { $0.value(for: "Range") == "bytes=0-0" }.count == 2)
  }
}
