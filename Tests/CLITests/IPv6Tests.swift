import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// IPv6 literal hosts (`http://[::1]:PORT/`) through the curl transport: as an entry's
/// `url`, among its `mirrors`, as a redirect's target and as `--proxy`, against the fault
/// server and tinyproxy listening on `::1`. (The URLSession transport cannot reach such
/// hosts and refuses them: `TransportLimitTests`.)
@Suite("haul run over IPv6 literals, curl transport", .serialized)
struct IPv6Tests {
  /// Runs haul (curl transport) on `lines` with `extra` arguments.
  private func run(
    _ lines: [String], _ extra: [String] = [], environment: [String: String] = [:],
    in directory: TemporaryDirectory
  ) async throws -> FaultRun {
    try writeManifest(lines, in: directory)
    let result = try await HaulBinary.run(
      runArguments("curl", ["--retries", "2"] + extra), in: directory, environment: environment)
    return try FaultRun(result, reportIn: directory)
  }

  @Test func a_url_on_an_ipv6_literal_downloads_and_resumes() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-ipv6")
    defer { directory.remove() }
    let server = try FaultServer.started(host: "::1")
    defer { server.stop() }
    #expect(server.origin.hasPrefix("http://[::1]:"))
    let whole = try dataLine(server, "whole", size: 200_000, seed: 1)
    // Cut once after 60 000 bytes: the retry resumes with a range request over IPv6.
    let cut = try dataLine(
      server, "cut", size: 300_000, seed: 2, options: ["drop": "60000", "times": "1"])

    let outcome = try await run([whole, cut], in: directory)

    #expect(outcome.result.status == 0, "\(outcome.result.stderr)")
    #expect(holdsContent(directory.file("out/whole.bin"), seed: 1, size: 200_000))
    #expect(holdsContent(directory.file("out/cut.bin"), seed: 2, size: 300_000))
    #expect(outcome.attempts(2) == 2, "\(outcome.describe(2))")
    let resumed = server.requests(pathPrefix: "/data/cut").last
    #expect(resumed?.value(for: "Range")?.hasPrefix("bytes=") == true)
    #expect(resumed?.value(for: "Host") == "[::1]:\(server.port)")
  }

  @Test func a_mirror_on_an_ipv6_literal_takes_over_from_a_failing_url() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-ipv6")
    defer { directory.remove() }
    let primary = try FaultServer.started()
    defer { primary.stop() }
    let mirror = try FaultServer.started(host: "::1")
    defer { mirror.stop() }
    let line = try manifestLine([
      "url": primary.dataURL("m", size: 50_000, seed: 3, options: ["status": "404"])
        .absoluteString,
      "mirrors": [mirror.dataURL("m", size: 50_000, seed: 3).absoluteString],
      "path": "m.bin", "size": 50_000, "sha256": TestContent.sha256(seed: 3, count: 50_000),
    ])

    let outcome = try await run([line], in: directory)

    #expect(outcome.result.status == 0, "\(outcome.result.stderr)")
    #expect(holdsContent(directory.file("out/m.bin"), seed: 3, size: 50_000))
    #expect(primary.requests(pathPrefix: "/data/m").count == 1)
    #expect(mirror.requests(pathPrefix: "/data/m").count == 1)
  }

  @Test func redirects_to_an_ipv6_literal_follow_the_origin_rules() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-ipv6")
    defer { directory.remove() }
    let four = try FaultServer.started()
    defer { four.stop() }
    let six = try FaultServer.started(host: "::1")
    defer { six.stop() }
    // 127.0.0.1 -> [::1] is another origin: the --header stays behind. [::1] -> [::1] on the
    // same port is the same origin: it goes along.
    let across = six.dataURL("across", size: 40_000, seed: 4).absoluteString
    let within = six.dataURL("within", size: 40_000, seed: 5).absoluteString
    let lines = [
      try manifestLine([
        "url": four.url("/hop?redirect=\(FaultServer.percentEncoded(across))").absoluteString,
        "path": "across.bin", "sha256": TestContent.sha256(seed: 4, count: 40_000),
      ]),
      try manifestLine([
        "url": six.url("/hop?redirect=\(FaultServer.percentEncoded(within))").absoluteString,
        "path": "within.bin", "sha256": TestContent.sha256(seed: 5, count: 40_000),
      ]),
    ]

    let outcome = try await run(lines, ["--header", "X-Team: ops"], in: directory)

    #expect(outcome.result.status == 0, "\(outcome.result.stderr)")
    #expect(holdsContent(directory.file("out/across.bin"), seed: 4, size: 40_000))
    #expect(holdsContent(directory.file("out/within.bin"), seed: 5, size: 40_000))
    #expect(four.requests(pathPrefix: "/hop").first?.value(for: "X-Team") == "ops")
    #expect(six.requests(pathPrefix: "/data/across").first?.value(for: "X-Team") == nil)
    #expect(six.requests(pathPrefix: "/data/within").first?.value(for: "X-Team") == "ops")
  }

  @Test func a_proxy_on_an_ipv6_literal_carries_the_requests() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-ipv6")
    defer { directory.remove() }
    let server = try FaultServer.started(host: "::1")
    defer { server.stop() }
    let url = server.dataURL("p", size: 30_000, seed: 6)
    try await TinyproxyFixture.with(host: "::1") { proxy in
      #expect(proxy.url().hasPrefix("http://[::1]:"))
      let outcome = try await run(
        [try dataLine(server, "p", size: 30_000, seed: 6)], ["--proxy", proxy.url()],
        in: directory)

      #expect(outcome.result.status == 0, "\(outcome.result.stderr)")
      #expect(holdsContent(directory.file("out/p.bin"), seed: 6, size: 30_000))
      #expect(proxy.requests() == ["GET \(url.absoluteString)"])
      #expect(server.requests(pathPrefix: "/data/p").first?.value(for: "Via") != nil)
    }
  }

  @Test func no_proxy_matches_an_ipv6_literal_with_or_without_brackets() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-ipv6")
    defer { directory.remove() }
    let server = try FaultServer.started(host: "::1")
    defer { server.stop() }
    // The proxy is down: only a request that goes direct can succeed.
    let refusing = try RefusingPort()
    defer { withExtendedLifetime(refusing) {} }
    let deadProxy = "http://127.0.0.1:\(refusing.port)"
    for (index, entry) in ["::1", "[::1]"].enumerated() {
      let name = "n\(index)"
      let outcome = try await run(
        [try dataLine(server, name, size: 10_000, seed: 7)],
        environment: ["http_proxy": deadProxy, "no_proxy": "example.test,\(entry)"],
        in: directory)
      #expect(outcome.result.status == 0, "no_proxy=\(entry): \(outcome.result.stderr)")
      #expect(holdsContent(directory.file("out/\(name).bin"), seed: 7, size: 10_000))
    }
  }
}
