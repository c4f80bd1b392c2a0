import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// `https://` proxies, through a real squid speaking TLS on its own port: the proxy's
/// certificate is checked against the system CAs and `--cacert` like any server's, plain
/// http is forwarded inside that TLS, and https is tunnelled inside it with the origin
/// verified end to end. (The URLSession transport refuses an https proxy:
/// `CLIProxyTests.urlsession_refuses_what_it_cannot_follow`.)
@Suite("haul run through an https:// proxy (squid)", .serialized)
struct CLIHTTPSProxyTests {
  /// Runs haul (curl transport) on `lines` with `arguments` and `environment`.
  private func run(
    _ lines: [String], _ arguments: [String], environment: [String: String] = [:],
    in directory: TemporaryDirectory
  ) async throws -> FaultRun {
    try? FileManager.default.removeItem(atPath: directory.file("out"))
    try writeManifest(lines, in: directory)
    let result = try await HaulBinary.run(
      runArguments("curl", ["--retries", "0"] + arguments), in: directory,
      environment: environment)
    return try FaultRun(result, reportIn: directory)
  }

  /// One PEM file trusting both `paths`' certificates (the proxy's and the origin's).
  private func bundle(_ paths: [String], in directory: TemporaryDirectory) throws -> String {
    let text = try paths.map { try String(contentsOfFile: $0, encoding: .utf8) }.joined()
    let path = directory.file("both.pem")
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  @Test func http_and_https_go_through_tls_to_the_proxy() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-https-proxy")
    defer { directory.remove() }
    try await NginxFixture.with(tls: true) { nginx in
      try nginx.createFile("f.bin", size: 60_000, seed: 1)
      let origin = try #require(nginx.certificatePath)
      try await SquidFixture.with { proxy in
        let lines = [
          try manifestLine(["url": nginx.url("/f.bin").absoluteString, "path": "plain.bin"]),
          try manifestLine(["url": nginx.httpsURL("/f.bin").absoluteString, "path": "tls.bin"]),
        ]
        let cacert = try bundle([proxy.certificatePath, origin], in: directory)

        let outcome = try await run(
          lines, ["--proxy", proxy.url(), "--cacert", cacert], in: directory)

        #expect(outcome.result.status == 0, "\(outcome.result.stderr)")
        for name in ["plain.bin", "tls.bin"] {
          #expect(FileDigest(path: directory.file("out/\(name)"))?.length == 60_000)
        }
        #expect(
          proxy.requests() == [
            "GET \(nginx.url("/f.bin").absoluteString)", "CONNECT 127.0.0.1:\(nginx.tlsPort ?? 0)",
          ]
            || proxy.requests() == [
              "CONNECT 127.0.0.1:\(nginx.tlsPort ?? 0)",
              "GET \(nginx.url("/f.bin").absoluteString)",
            ], "\(proxy.requests())")
      }
    }
  }

  @Test func the_https_proxy_variable_may_name_an_https_proxy() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-https-proxy")
    defer { directory.remove() }
    try await NginxFixture.with(tls: true) { nginx in
      try nginx.createFile("f.bin", size: 20_000, seed: 2)
      let origin = try #require(nginx.certificatePath)
      try await SquidFixture.with { proxy in
        let line = try manifestLine([
          "url": nginx.httpsURL("/f.bin").absoluteString, "path": "f.bin",
        ])
        let cacert = try bundle([proxy.certificatePath, origin], in: directory)

        let outcome = try await run(
          [line], ["--cacert", cacert], environment: ["HTTPS_PROXY": proxy.url()],
          in: directory)

        #expect(outcome.result.status == 0, "\(outcome.result.stderr)")
        #expect(proxy.requests() == ["CONNECT 127.0.0.1:\(nginx.tlsPort ?? 0)"])
      }
    }
  }

  @Test func an_untrusted_proxy_certificate_fails_naming_the_proxy() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-https-proxy")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      try nginx.createFile("f.bin", size: 20_000, seed: 3)
      try await SquidFixture.with { proxy in
        let line = try manifestLine(["url": nginx.url("/f.bin").absoluteString, "path": "f.bin"])

        let outcome = try await run([line], ["--proxy", proxy.url()], in: directory)

        #expect(outcome.result.status == 1)
        #expect(outcome.code(1) == "tls", "\(outcome.describe(1))")
        #expect(
          outcome.result.stderr.contains("127.0.0.1:\(proxy.port)"), "\(outcome.result.stderr)")
        #expect(!exists(directory.file("out/f.bin")))
        #expect(proxy.requests().isEmpty)
      }
    }
  }
}
