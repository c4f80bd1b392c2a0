import Foundation
import HaulTestSupport
import Testing

@Suite("haul page: GET / without the token, its headers, the Host rule, the address printed")
struct PageTests {
  @Test func the_page_needs_no_token_carries_its_policy_and_holds_no_token() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-page-get")
    defer { directory.remove() }
    let daemon = try ServeDaemon(in: directory, listen: true)
    let port = try #require(daemon.port)

    let (head, body) = try Self.get(port: port, host: "127.0.0.1:\(port)")
    #expect(head.first?.hasPrefix("HTTP/1.1 200") == true, "\(head)")
    #expect(
      Self.field("content-security-policy", head)
        == "default-src 'self'; script-src 'self' 'unsafe-inline'; "
        + "style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; "
        + "frame-ancestors 'none'")
    #expect(Self.field("x-content-type-options", head) == "nosniff")
    #expect(Self.field("referrer-policy", head) == "no-referrer")
    #expect(Self.field("cache-control", head) == "no-store")
    #expect(Self.field("content-type", head)?.hasPrefix("text/html") == true)
    #expect(body.contains("<title>haul</title>"))
    #expect(!daemon.token.isEmpty)
    #expect(!body.contains(daemon.token))
    // DNS rebinding: a page whose name now points at 127.0.0.1 gets no page either.
    #expect(
      try Self.get(port: port, host: "evil.example:\(port)").head.first?.contains("403") == true)
    // Only the page is exempt from the token.
    #expect(try daemon.tcp("GET", "/v1/jobs", authorized: false).status == 401)
    #expect(try daemon.tcp("POST", "/", authorized: false).status == 401)
    #expect(try await daemon.terminate()?.status == 0)
  }

  @Test func haul_page_prints_the_address_with_the_token_from_the_listen_file() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-page-cmd")
    defer { directory.remove() }
    let daemon = try ServeDaemon(in: directory, listen: true)
    let port = try #require(daemon.port)
    let listen = daemon.state + "/listen"
    let mode = try FileManager.default.attributesOfItem(atPath: listen)[.posixPermissions] as? Int
    #expect(mode == 0o600)

    let page = try await HaulBinary.run(["page", "--state-dir", daemon.state], in: directory)
    #expect(page.status == 0, "\(page.stderr)")
    #expect(page.stdout == "http://127.0.0.1:\(port)/#token=\(daemon.token)\n")
    let given = try await HaulBinary.run(
      ["page", "--state-dir", daemon.state, "--listen", "localhost:8123"], in: directory)
    #expect(given.stdout == "http://localhost:8123/#token=\(daemon.token)\n")

    // The daemon printed no token; at its stop the address is gone, and page says so.
    let log = try String(contentsOfFile: try #require(daemon.process).stderrPath, encoding: .utf8)
    #expect(!log.contains(daemon.token))
    #expect(try await daemon.terminate()?.status == 0)
    #expect(!FileManager.default.fileExists(atPath: listen))
    let none = try await HaulBinary.run(["page", "--state-dir", daemon.state], in: directory)
    #expect(none.status == 2)
    #expect(none.stdout.isEmpty)
    #expect(none.stderr.contains("--listen"), "\(none.stderr)")
  }

  /// `GET /` over TCP with `Host: host`, by curl: the header lines and the body.
  static func get(port: Int, host: String) throws -> (head: [String], body: String) {
    let output = try ServeDaemon.run(
      "/usr/bin/curl", ["-s", "-i", "-H", "Host: \(host)", "http://127.0.0.1:\(port)/"])
    let parts = output.components(separatedBy: "\r\n\r\n")
    return (
      parts[0].components(separatedBy: "\r\n"), parts.dropFirst().joined(separator: "\r\n\r\n")
    )
  }

  /// The value of header field `name` (lower case) among `head`'s lines.
  static func field(_ name: String, _ head: [String]) -> String? {
    for line in head {
      guard let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == name else {
        continue
      }
      return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    return nil
  }
}
