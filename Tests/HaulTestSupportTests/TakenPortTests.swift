import Foundation
import HaulCore
import Testing

@testable import HaulTestSupport

/// Every server fixture comes up on a server of its own when the port it is first given is
/// already taken: the race in which another test's server takes a port between its choice and
/// the fixture's bind, made certain by a server holding that port from the start.
@Suite struct TakenPortTests {
  /// A server that holds a port and records whatever reaches it.
  let holder: FaultServer

  init() throws { holder = try FaultServer.started() }

  @Test func moto_binds_a_port_of_its_own() async throws {
    defer { holder.stop() }
    let port = holder.port
    let moto = try await onOwnThread { try MotoFixture.start(buckets: ["taken-port"], port: port) }
    defer { moto.stop() }
    #expect(moto.port != port)
    _ = try RawHTTP.request("GET", "/taken-port?list-type=2", port: moto.port)
    #expect(moto.requestLog().contains("\"GET /taken-port?list-type=2 HTTP/1.1\""))
    #expect(holder.requests.isEmpty)
  }

  @Test func rclone_binds_a_port_of_its_own() async throws {
    defer { holder.stop() }
    let port = holder.port
    let rclone = try await onOwnThread { try RcloneS3Fixture.start(buckets: ["b"], port: port) }
    defer { rclone.stop() }
    #expect(rclone.port != port)
    let answer = try RawHTTP.request("GET", "/b?list-type=2", port: rclone.port)
    // An unsigned request: rclone refuses it with an S3 error document.
    #expect(answer.status >= 400)
    #expect(String(decoding: answer.body, as: UTF8.self).contains("<Error><Code>"))
    #expect(holder.requests.isEmpty)
  }

  @Test func the_s3_fault_proxy_binds_a_port_of_its_own() async throws {
    defer { holder.stop() }
    let upstream = try FaultServer.started()
    defer { upstream.stop() }
    let (port, upstreamPort) = (holder.port, upstream.port)
    let proxy = try await onOwnThread {
      try S3FaultProxy.start(
        upstream: upstreamPort, failedCompletions: 0, barrier: 0, port: port)
    }
    defer { proxy.stop() }
    #expect(proxy.port != port)
    _ = try RawHTTP.request("GET", "/through-the-proxy", port: proxy.port)
    #expect(upstream.requests.map(\.path) == ["/through-the-proxy"])
    #expect(holder.requests.isEmpty)
  }

  @Test func the_tus_server_binds_a_port_of_its_own() async throws {
    defer { holder.stop() }
    let port = holder.port
    let tus = try await onOwnThread { try TusFixture.start(port: port) }
    defer { tus.stop() }
    #expect(tus.port != port)
    let answer = try RawHTTP.request(
      "OPTIONS", "/files/", port: tus.port, headers: ["Tus-Resumable": "1.0.0"])
    #expect(answer.value(for: "Tus-Version") != nil)
    #expect(holder.requests.isEmpty)
  }

  @Test func nginx_starts_again_on_a_free_port() async throws {
    defer { holder.stop() }
    let port = holder.port
    let nginx = try await onOwnThread { try NginxFixture.start(port: port) }
    defer { nginx.stop() }
    #expect(nginx.port != port)
    try nginx.createFile("f.bin", size: 100, seed: 3)
    let answer = try RawHTTP.request("GET", "/f.bin", port: nginx.port)
    #expect(answer.body == TestContent.bytes(seed: 3, count: 100))
    #expect(holder.requests.isEmpty)
  }

  @Test func tinyproxy_starts_again_on_a_free_port() async throws {
    defer { holder.stop() }
    let port = holder.port
    let proxy = try await onOwnThread { try TinyproxyFixture.start(port: port) }
    defer { proxy.stop() }
    #expect(proxy.port != port)
    // A request through the proxy reaches the holder, forwarded by tinyproxy (its Via).
    _ = try RawHTTP.request("GET", holder.url("/forwarded").absoluteString, port: proxy.port)
    #expect(holder.requests.map(\.path) == ["/forwarded"])
    #expect(
      holder.requests.first?.value(for: "Via")?.contains(TinyproxyFixture.viaName) == true)
  }

  @Test func squid_starts_again_on_a_free_port() async throws {
    defer { holder.stop() }
    let port = holder.port
    let squid = try await onOwnThread { try SquidFixture.start(port: port) }
    defer { squid.stop() }
    #expect(squid.port != port)
    #expect(NginxFixture.canConnect(port: squid.port))
    #expect(holder.requests.isEmpty)
  }
}
