import Foundation
import HaulTestSupport
import Testing

/// What a transport cannot do is refused before any transfer, naming the line, rather than
/// failed attempt after attempt.
@Suite("Transport limits refused at validation, through the built binary")
struct TransportLimitTests {
  let directory: TemporaryDirectory

  init() throws { directory = try TemporaryDirectory(prefix: "haul-cli-limits") }

  @Test(arguments: [
    #"{"url":"http://[::1]:9/a.bin"}"#,
    #"{"url":"http://127.0.0.1:9/a.bin","mirrors":["http://[::1]:9/a"]}"#,
    "http://[::1]:9/a.bin",
  ])
  func ipv6_literals_are_refused_with_urlsession_naming_the_line(line: String) async throws {
    defer { directory.remove() }
    try writeManifest(["http://127.0.0.1:9/first.bin", line], in: directory)

    let result = try await HaulBinary.run(
      ["run", "manifest.jsonl", "-o", "out", "--transport", "urlsession", "-q", "--retries", "0"],
      in: directory, timeout: 30)

    #expect(result.status == 2, "\(result.stderr)")
    #expect(result.stderr.contains("manifest.jsonl:2: "), "\(result.stderr)")
    #expect(result.stderr.contains("IPv6"), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: directory.file("out")))
  }

  @Test func ipv6_literals_are_accepted_with_curl() async throws {
    defer { directory.remove() }
    try writeManifest(["http://[::1]:9/a.bin"], in: directory)

    let result = try await HaulBinary.run(
      ["run", "manifest.jsonl", "-o", "out", "--transport", "curl", "-q", "--retries", "0"],
      in: directory, timeout: 30)

    // Port 9 (discard) has no listener: the transfer is tried, and fails.
    #expect(result.status == 1, "\(result.stderr)")
    #expect(!result.stderr.contains("IPv6"), "\(result.stderr)")
  }

  /// corelibs on Linux cannot trust an extra CA file, so `--cacert` would be ignored and every
  /// https entry would fail with `tls` as if the CA did not vouch for it.
  @Test(arguments: [
    ["run", "manifest.jsonl", "-o", "out", "-q", "--transport", "urlsession"],
    ["bench", "manifest.jsonl"],
    ["bench", "manifest.jsonl", "--transports", "urlsession"],
  ])
  func cacert_is_refused_with_urlsession_saying_why(arguments: [String]) async throws {
    defer { directory.remove() }
    try writeManifest(["https://127.0.0.1:9/a.bin"], in: directory)
    try "not used\n".write(toFile: directory.file("ca.pem"), atomically: true, encoding: .utf8)

    let result = try await HaulBinary.run(
      arguments + ["--cacert", "ca.pem", "--retries", "0"], in: directory, timeout: 30)

    #expect(result.status == 2, "\(result.stderr)")
    #expect(result.stderr.contains("--cacert needs --transport curl"), "\(result.stderr)")
    #expect(result.stderr.contains("system CA store"), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: directory.file("out")))
  }

  @Test func cacert_is_accepted_with_curl() async throws {
    defer { directory.remove() }
    try writeManifest(["https://127.0.0.1:9/a.bin"], in: directory)
    try "not used\n".write(toFile: directory.file("ca.pem"), atomically: true, encoding: .utf8)

    let result = try await HaulBinary.run(
      ["run", "manifest.jsonl", "-o", "out", "--cacert", "ca.pem", "-q", "--retries", "0"],
      in: directory, timeout: 30)

    // Port 9 (discard) has no listener: the transfer is tried, and fails.
    #expect(result.status == 1, "\(result.stderr)")
    #expect(!result.stderr.contains("--cacert"), "\(result.stderr)")
  }
}
