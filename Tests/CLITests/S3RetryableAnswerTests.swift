import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// S3's own retryable answers, through the built binary and both transports: a 400 whose
/// error document says `RequestTimeout` is retried as a 408 would be, `SlowDown` (a 503)
/// as any 503, and a 400 with another code is not retried.
@Suite("S3 error codes decide retries: RequestTimeout and SlowDown")
struct S3RetryableAnswerTests {
  @Test(arguments: transports)
  func request_timeout_and_slow_down_are_retried_other_400s_are_not(transport: String)
    async throws
  {
    let directory = try TemporaryDirectory(prefix: "haul-s3-retry")
    let server = try FaultServer.started()
    defer {
      server.stop()
      directory.remove()
    }
    try FileManager.default.createDirectory(
      atPath: directory.file("out"), withIntermediateDirectories: true)
    try TestContent.writeFile(at: directory.file("out/up.bin"), seed: 5, count: 30_000)
    let lines = [
      try dataLine(
        server, "timeout", size: 20_000, seed: 1,
        options: ["status": "400", "s3error": "RequestTimeout", "times": "1"]),
      try dataLine(
        server, "slow", size: 20_000, seed: 2,
        options: ["status": "503", "s3error": "SlowDown", "times": "1"]),
      try dataLine(
        server, "invalid", size: 20_000, seed: 3,
        options: ["status": "400", "s3error": "InvalidArgument"]),
      try manifestLine([
        "url": server.origin + "/upload/up?status=400&s3error=RequestTimeout&times=1",
        "op": "upload", "path": "up.bin",
      ]),
    ]
    try writeManifest(lines, in: directory)

    let run = try FaultRun(
      try await HaulBinary.run(runArguments(transport, ["--retries", "2"]), in: directory),
      reportIn: directory)

    #expect(run.result.status == 1, "\(run.result.stderr)")
    for line in [1, 2, 4] {
      #expect(run.status(line) == "ok", "\(run.describe(line))")
      #expect(run.attempts(line) == 2, "\(run.describe(line))")
    }
    #expect(run.retries(1).first?["code"] as? String == "http_400")
    #expect(run.retries(2).first?["code"] as? String == "http_503")
    #expect(run.retries(4).first?["code"] as? String == "http_400")
    #expect(run.code(3) == "http_400", "\(run.describe(3))")
    #expect(run.attempts(3) == 1, "another 400 ends the source")
    let message = (run.transfers[3]?["error"] as? [String: Any])?["message"] as? String
    #expect(message?.contains("InvalidArgument") == true, "\(run.describe(3))")
    #expect(server.upload(named: "up")?.length == 30_000)
    #expect(holdsContent(directory.file("out/timeout.bin"), seed: 1, size: 20_000))
  }
}
