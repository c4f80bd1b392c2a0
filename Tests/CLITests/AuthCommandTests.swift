import Foundation
import HaulCore
import HaulTestSupport
import Testing

@Suite("--auth-command: bearer tokens that expire, through the built binary")
struct AuthCommandTests {
  let directory: TemporaryDirectory
  let server: FaultServer

  init() throws {
    directory = try TemporaryDirectory(prefix: "haul-cli-auth")
    server = try FaultServer.started()
  }

  func cleanUp() {
    server.stop()
    directory.remove()
  }

  /// A command that counts its runs in `runs.txt` and prints `tok-s3cr3t-<run>`.
  static let command =
    "n=$(cat runs.txt 2>/dev/null || echo 0); n=$((n+1)); echo $n > runs.txt; echo \" tok-s3cr3t-$n \""

  /// What the fault server's `bearer` option takes: the token's SHA-256.
  static func digest(_ token: String) -> String { SHA256.hex(of: Array(token.utf8)) }

  var runs: Int {
    Int(
      (try? String(contentsOfFile: directory.file("runs.txt"), encoding: .utf8))?
        .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
  }

  @Test(arguments: transports)
  func an_expired_token_is_refreshed_once_for_every_transfer_that_got_401(transport: String)
    async throws
  {
    defer { cleanUp() }
    // Given four files that only the second token opens, and another origin reached by a
    // redirect,
    let other = try FaultServer.started(host: "127.0.0.2")
    defer { other.stop() }
    var lines = try (0..<4).map { index in
      try manifestLine([
        "url": server.dataURL(
          "a\(index)", size: 3000, seed: UInt64(100 + index),
          options: ["bearer": Self.digest("tok-s3cr3t-2"), "wait": "0.3"]
        ).absoluteString,
        "path": "a\(index).bin",
        "sha256": TestContent.sha256(seed: UInt64(100 + index), count: 3000),
      ])
    }
    let elsewhere = other.dataURL("elsewhere", size: 3000, seed: 110).absoluteString
    lines.append(
      try manifestLine([
        "url": server.url("/hop?redirect=\(FaultServer.percentEncoded(elsewhere))").absoluteString,
        "path": "elsewhere.bin", "sha256": TestContent.sha256(seed: 110, count: 3000),
      ]))
    try writeManifest(lines, in: directory)

    // when haul runs them together,
    let result = try await HaulBinary.run(
      [
        "run", "manifest.jsonl", "-o", "out", "-j", "8", "--transport", transport,
        "--auth-command", Self.command, "--events", "--report", "report.json", "--retries", "0",
      ], in: directory)

    // then the first token was sent to each, the 401s were answered by one new run of the
    // command, and every transfer succeeded in its second attempt, the re-sent request,
    // which used up no retry.
    #expect(result.status == 0, "\(result.stderr)")
    #expect(runs == 2)
    let records = server.requests(pathPrefix: "/data/a")
    #expect(records.count == 8)
    #expect(
      records.filter { $0.value(for: "Authorization") == "Bearer tok-s3cr3t-1" }
        .allSatisfy { $0.status == 401 })
    #expect(
      records.filter { $0.value(for: "Authorization") == "Bearer tok-s3cr3t-2" }.count == 4)
    let transfers = try #require(
      try jsonFile(directory.file("report.json"))["transfers"] as? [[String: Any]])
    #expect(transfers.allSatisfy { $0["status"] as? String == "ok" })
    for transfer in transfers {
      let refreshed = (transfer["path"] as? String)?.hasPrefix("a") == true
      #expect(transfer["attempts"] as? Int == (refreshed ? 2 : 1), "\(transfer)")
    }
    let retries = try result.events().filter { $0["type"] as? String == "retry" }
    #expect(retries.count == 4 && retries.allSatisfy { $0["code"] as? String == "http_401" })

    // The token went to the entry's own origin only: not across the redirect.
    #expect(server.requests(pathPrefix: "/hop").first?.value(for: "Authorization") != nil)
    let hop = try #require(other.requests(pathPrefix: "/data/elsewhere").first)
    #expect(hop.value(for: "Authorization") == nil)

    // And it is printed nowhere.
    let report = try String(contentsOfFile: directory.file("report.json"), encoding: .utf8)
    for text in [result.stdout, result.stderr, report] {
      #expect(!text.contains("s3cr3t"))
    }
  }

  @Test(arguments: transports)
  func a_second_401_fails_the_transfer_with_http_401(transport: String) async throws {
    defer { cleanUp() }
    let url = server.dataURL(
      "never", size: 1000, seed: 111, options: ["bearer": Self.digest("nobody-has-it")])
    try writeManifest(
      [try manifestLine(["url": url.absoluteString, "path": "never.bin"])], in: directory)

    let result = try await HaulBinary.run(
      [
        "run", "manifest.jsonl", "-o", "out", "--transport", transport, "--auth-command",
        Self.command, "--report", "report.json", "--events",
      ], in: directory)

    #expect(result.status == 1, "\(result.stderr)")
    #expect(runs == 2)
    #expect(server.requests(pathPrefix: "/data/never").count == 2)
    let transfer = try #require(
      (try jsonFile(directory.file("report.json"))["transfers"] as? [[String: Any]])?.first)
    #expect((transfer["error"] as? [String: Any])?["code"] as? String == "http_401")
    #expect(transfer["attempts"] as? Int == 2)
    let report = try String(contentsOfFile: directory.file("report.json"), encoding: .utf8)
    for text in [result.stdout, result.stderr, report] {
      #expect(!text.contains("s3cr3t"))
    }
  }

  @Test(arguments: transports)
  func a_refresh_that_fails_fails_the_transfer_with_auth(transport: String) async throws {
    defer { cleanUp() }
    let url = server.dataURL("later", size: 1000, seed: 112, options: ["bearer": Self.digest("x")])
    try writeManifest(
      [try manifestLine(["url": url.absoluteString, "path": "later.bin"])], in: directory)
    let failsLater =
      "n=$(cat runs.txt 2>/dev/null || echo 0); n=$((n+1)); echo $n > runs.txt; "
      + "[ $n -eq 1 ] && echo tok-s3cr3t-$n"

    let result = try await HaulBinary.run(
      [
        "run", "manifest.jsonl", "-o", "out", "--transport", transport, "--auth-command",
        failsLater, "--report", "report.json",
      ], in: directory)

    #expect(result.status == 1, "\(result.stderr)")
    #expect(runs == 2)
    let transfer = try #require(
      (try jsonFile(directory.file("report.json"))["transfers"] as? [[String: Any]])?.first)
    #expect((transfer["error"] as? [String: Any])?["code"] as? String == "auth")
    #expect(!result.stderr.contains("s3cr3t"))
  }

  @Test(arguments: ["exit 3", "true", "printf '   \\n'"])
  func a_command_that_fails_or_prints_nothing_at_start_is_a_usage_error(command: String)
    async throws
  {
    defer { cleanUp() }
    try writeManifest(
      [server.dataURL("unused", size: 10, seed: 1).absoluteString], in: directory)

    let result = try await HaulBinary.run(
      ["run", "manifest.jsonl", "-o", "out", "--auth-command", command], in: directory)

    #expect(result.status == 2, "\(result.stderr)")
    #expect(result.stderr.contains("auth"), "\(result.stderr)")
    #expect(server.requests.isEmpty)
  }
}
