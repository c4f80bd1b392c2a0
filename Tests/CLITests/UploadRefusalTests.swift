import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// A server that refuses a small upload at once and resets the connection with its body
/// unread: the refusal is the outcome, in the one attempt it took.
@Suite("Uploads refused at once: the answer survives the reset")
struct UploadRefusalTests {
  let directory: TemporaryDirectory
  let server: FaultServer

  init() throws {
    directory = try TemporaryDirectory(prefix: "haul-refusal")
    server = try FaultServer.started()
  }

  func cleanUp() {
    server.stop()
    directory.remove()
  }

  /// Only the curl transport: the URLSession one sends no `Expect` and cannot send again,
  /// so the reset costs it the answer (docs/behaviour.md, "HTTP/2").
  @Test
  func a_small_put_refused_with_a_reset_fails_with_the_refusal_after_one_attempt() async throws {
    defer { cleanUp() }
    try FileManager.default.createDirectory(
      atPath: directory.file("out"), withIntermediateDirectories: true)
    _ = try TestContent.writeFile(at: directory.file("out/small.bin"), seed: 31, count: 16 << 10)
    let url = server.url("/upload/missing/small.bin?refuse=409").absoluteString
    try writeManifest(
      [try manifestLine(["op": "upload", "url": url, "path": "small.bin"])], in: directory)

    let run = try FaultRun(
      try await HaulBinary.run(runArguments("curl", ["--retries", "1"]), in: directory),
      reportIn: directory)

    #expect(run.result.status == 1, "\(run.result.stderr)")
    #expect(run.code(1) == "http_409", "\(run.describe(1))")
    #expect(run.attempts(1) == 1, "\(run.describe(1))")
    #expect(run.retries(1).isEmpty)
    #expect(server.requests(pathPrefix: "/upload/").count == 2)
  }
}
