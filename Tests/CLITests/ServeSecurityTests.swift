import Foundation
import HaulTestSupport
import Testing

@Suite("haul serve: the token, Host and Origin checks, bounded bodies, slow clients")
struct ServeSecurityTests {
  @Test func tcp_answers_only_with_the_token_its_own_host_and_no_foreign_origin() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-serve-tcp")
    defer { directory.remove() }
    let daemon = try ServeDaemon(in: directory, listen: true)
    let port = try #require(daemon.port)
    #expect(daemon.token.count == 64)
    #expect(try daemon.tcp("GET", "/v1/jobs").status == 200)

    let anonymous = try daemon.tcp("GET", "/v1/jobs", authorized: false)
    #expect(anonymous.status == 401)
    #expect(anonymous.body.contains("unauthorized"))
    let wrong = try daemon.tcp(
      "GET", "/v1/jobs", headers: ["Authorization: Bearer \(String(repeating: "0", count: 64))"],
      authorized: false)
    #expect(wrong.status == 401)
    // DNS rebinding: a page on evil.example whose name now points at 127.0.0.1.
    #expect(
      try daemon.tcp("GET", "/v1/jobs", headers: ["Host: evil.example:\(port)"]).status == 403)
    #expect(
      try daemon.tcp("GET", "/v1/jobs", headers: ["Host: localhost:\(port)"]).status == 200)
    // A cross-site request from a page the user visits.
    #expect(
      try daemon.tcp("POST", "/v1/jobs", headers: ["Origin: https://evil.example"], body: "{}")
        .status == 403)
    #expect(
      try daemon.tcp("GET", "/v1/jobs", headers: ["Origin: http://127.0.0.1:\(port)"]).status
        == 200)
    // The token appears in no answer and nothing the daemon printed.
    let log = try String(contentsOfFile: try #require(daemon.process).stderrPath, encoding: .utf8)
    #expect(!log.contains(daemon.token))
    #expect(try await daemon.terminate()?.status == 0)
  }

  @Test func an_oversized_body_is_refused_and_slow_clients_hold_nobody_back() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-serve-bounds")
    defer { directory.remove() }
    let daemon = try ServeDaemon(in: directory, listen: true, extra: ["--max-request-size", "1K"])
    let big = "{\"manifest\": \"" + String(repeating: "#", count: 4000) + "\"}"
    let refused = try daemon.tcp("POST", "/v1/jobs", body: big)
    #expect(refused.status == 413)
    #expect(refused.body.contains("too_large"))

    // 200 connections that send half a request and wait.
    var sockets: [Int32] = []
    defer { for fd in sockets { close(fd) } }
    for _ in 0..<200 {
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = in_port_t(UInt16(daemon.port ?? 0).bigEndian)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      #expect(connected == 0)
      _ = "GET /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1".withCString { send(fd, $0, strlen($0), 0) }
      sockets.append(fd)
    }
    let answered = try await daemon.client(["jobs"], timeout: 30)
    #expect(answered.status == 0, "\(answered.stderr)")
    #expect(try daemon.tcp("GET", "/v1/stats").status == 200)
    #expect(try await daemon.terminate()?.status == 0)
  }
}
