import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// Proxies through a real forward proxy (tinyproxy): the variables, `no_proxy`, `--proxy`,
/// `--no-proxy`, a proxy's refusals, and credentials that never show.
@Suite("haul run through tinyproxy: the proxy variables and options", .serialized)
struct CLIProxyTests {
  /// Runs haul on a one-file manifest of `url` with `arguments` and `environment`; returns
  /// the result and the report's one transfer.
  private func run(
    _ url: URL, _ arguments: [String], environment: [String: String],
    in directory: TemporaryDirectory
  ) async throws -> (HaulResult, [String: Any]) {
    try writeManifest(
      [try manifestLine(["url": url.absoluteString, "path": "f.bin"])], in: directory)
    let result = try await HaulBinary.run(
      ["run", "manifest.jsonl", "-o", "out", "--report", "report.json", "--retries", "0"]
        + arguments, in: directory, environment: environment)
    let report = try jsonFile(directory.file("report.json"))
    let transfers = try #require(report["transfers"] as? [[String: Any]])
    return (result, try #require(transfers.first))
  }

  @Test(arguments: transports)
  func http_proxy_carries_plain_http_requests(transport: String) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-proxy")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      try nginx.createFile("f.bin", size: 70_000, seed: 1)
      try await TinyproxyFixture.with { proxy in
        let (result, _) = try await run(
          nginx.url("/f.bin"), ["--transport", transport],
          environment: ["http_proxy": proxy.url()], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(proxy.requests() == ["GET \(nginx.url("/f.bin").absoluteString)"])
        #expect(FileDigest(path: directory.file("out/f.bin"))?.length == 70_000)
      }
    }
  }

  @Test func https_goes_through_a_connect_tunnel_with_the_origin_verified() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-proxy")
    defer { directory.remove() }
    try await NginxFixture.with(tls: true) { nginx in
      try nginx.createFile("f.bin", size: 50_000, seed: 2)
      let cacert = try #require(nginx.certificatePath)
      try await TinyproxyFixture.with { proxy in
        let (result, _) = try await run(
          nginx.httpsURL("/f.bin"), ["--cacert", cacert],
          environment: ["HTTPS_PROXY": proxy.url()], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(proxy.requests() == ["CONNECT 127.0.0.1:\(nginx.tlsPort ?? 0)"])

        // Without the origin's CA the tunnel is made but the origin is not trusted.
        try? FileManager.default.removeItem(atPath: directory.file("out"))
        let (untrusted, transfer) = try await run(
          nginx.httpsURL("/f.bin"), [], environment: ["HTTPS_PROXY": proxy.url()],
          in: directory)
        #expect(untrusted.status == 1)
        #expect((transfer["error"] as? [String: Any])?["code"] as? String == "tls")
      }
    }
  }

  @Test(arguments: transports)
  func no_proxy_hosts_go_direct(transport: String) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-proxy")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      try nginx.createFile("f.bin", size: 1000, seed: 3)
      try await TinyproxyFixture.with { proxy in
        let (result, _) = try await run(
          nginx.url("/f.bin"), ["--transport", transport],
          environment: ["http_proxy": proxy.url(), "no_proxy": "example.test,127.0.0.1"],
          in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(proxy.requests().isEmpty)
        #expect(nginx.accessLog(atLeast: 1).count == 1)
      }
    }
  }

  @Test func no_proxy_option_goes_direct_whatever_the_variables_say() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-proxy")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      try nginx.createFile("f.bin", size: 1000, seed: 4)
      try await TinyproxyFixture.with { proxy in
        let environment = ["http_proxy": proxy.url(), "ALL_PROXY": proxy.url()]
        let (result, _) = try await run(
          nginx.url("/f.bin"), ["--no-proxy"], environment: environment, in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(proxy.requests().isEmpty)
      }
    }
  }

  @Test func proxy_option_overrides_the_variables() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-proxy")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      try nginx.createFile("f.bin", size: 1000, seed: 5)
      try await TinyproxyFixture.with { proxy in
        let (result, _) = try await run(
          nginx.url("/f.bin"), ["--proxy", proxy.url()],
          environment: ["http_proxy": "http://127.0.0.1:9"], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(proxy.requests().count == 1)
      }
    }
  }

  @Test func an_unreachable_proxy_fails_naming_it_without_its_credentials() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-proxy")
    defer { directory.remove() }
    let refusing = try RefusingPort()
    defer { withExtendedLifetime(refusing) {} }
    let port = refusing.port
    let (result, transfer) = try await run(
      URL(string: "http://127.0.0.1:9/f.bin")!,
      ["--proxy", "http://alice:s3cret@127.0.0.1:\(port)"], environment: [:], in: directory)
    #expect(result.status == 1)
    let error = try #require(transfer["error"] as? [String: Any])
    #expect(error["code"] as? String == "proxy")
    #expect((error["message"] as? String)?.contains("http://127.0.0.1:\(port)") == true)
    #expect(result.stderr.contains("127.0.0.1:\(port)"))
    let report = try String(contentsOfFile: directory.file("report.json"), encoding: .utf8)
    for output in [result.stderr, result.stdout, report] {
      #expect(!output.contains("s3cret"))
      #expect(!output.contains("alice"))
    }
  }

  @Test(arguments: ["http", "https"])
  func a_proxy_demanding_credentials_is_reported_as_the_proxy_refusal(scheme: String)
    async throws
  {
    let directory = try TemporaryDirectory(prefix: "haul-cli-proxy")
    defer { directory.remove() }
    try await NginxFixture.with(tls: true) { nginx in
      try nginx.createFile("f.bin", size: 2000, seed: 6)
      let url = scheme == "https" ? nginx.httpsURL("/f.bin") : nginx.url("/f.bin")
      let cacert = try #require(nginx.certificatePath)
      try await TinyproxyFixture.with(credentials: ("alice", "s3cret")) { proxy in
        let (refused, transfer) = try await run(
          url, ["--cacert", cacert, "--proxy", proxy.url()],
          environment: [:], in: directory)
        #expect(refused.status == 1)
        let error = try #require(transfer["error"] as? [String: Any])
        #expect(error["code"] as? String == "proxy")
        #expect((error["message"] as? String)?.contains("127.0.0.1:\(proxy.port)") == true)
        #expect((error["message"] as? String)?.contains("407") == true, "\(error)")

        let (accepted, _) = try await run(
          url, ["--cacert", cacert, "--proxy", proxy.url(user: "alice", password: "s3cret")],
          environment: [:], in: directory)
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(!accepted.stderr.contains("s3cret"))
      }
    }
  }

  @Test func urlsession_refuses_what_it_cannot_follow() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-proxy")
    defer { directory.remove() }
    try writeManifest(
      [try manifestLine(["url": "http://127.0.0.1:9/f", "path": "f"])], in: directory)
    let base = ["run", "manifest.jsonl", "-o", ".", "--transport", "urlsession"]
    for (arguments, environment) in [
      (["--proxy", "http://127.0.0.1:9"], [String: String]()),
      (["--no-proxy"], [:]),
      ([], ["ALL_PROXY": "socks5h://127.0.0.1:9"]),
      ([], ["https_proxy": "https://bob:pw@127.0.0.1:9"]),
    ] {
      let result = try await HaulBinary.run(
        base + arguments, in: directory, environment: environment)
      #expect(result.status == 2, "\(arguments) \(environment)")
      #expect(result.stderr.contains("--transport curl"), "\(result.stderr)")
      #expect(!result.stderr.contains("pw@"))
    }
  }
}
