import Foundation
import HaulCore
import HaulTestSupport
import Synchronization
import Testing

/// The fault server's own behaviour, checked over a raw socket (no transport involved), so a
/// conformance failure can be trusted to be the transport's.
@Suite struct FaultServerTests {
  @Test func content_is_random_access_and_deterministic() {
    let whole = TestContent.bytes(seed: 9, count: 1000)
    #expect(TestContent.bytes(seed: 9, count: 101, offset: 13) == Array(whole[13..<114]))
    #expect(TestContent.bytes(seed: 10, count: 1000) != whole)
    #expect(TestContent.sha256(seed: 9, count: 1000) == SHA256.hex(of: whole))
  }

  @Test func data_route_serves_content_ranges_and_if_range() throws {
    let server = try FaultServer.started()
    defer { server.stop() }
    let target = "/data/plain?size=5000&seed=3"

    let full = try RawHTTP.request("GET", target, port: server.port)
    #expect(full.status == 200)
    #expect(full.body == TestContent.bytes(seed: 3, count: 5000))
    let etag = try #require(full.value(for: "ETag"))
    #expect(etag.hasPrefix("\""))

    let partial = try RawHTTP.request(
      "GET", target, port: server.port, headers: ["Range": "bytes=100-199", "If-Range": etag])
    #expect(partial.status == 206)
    #expect(partial.value(for: "Content-Range") == "bytes 100-199/5000")
    #expect(partial.body == TestContent.bytes(seed: 3, count: 100, offset: 100))

    let stale = try RawHTTP.request(
      "GET", target, port: server.port, headers: ["Range": "bytes=100-", "If-Range": "\"old\""])
    #expect(stale.status == 200)
    #expect(stale.body.count == 5000)

    let beyond = try RawHTTP.request(
      "GET", target, port: server.port, headers: ["Range": "bytes=5000-"])
    #expect(beyond.status == 416)

    let head = try RawHTTP.request("HEAD", target, port: server.port)
    #expect(head.status == 200 && head.body.isEmpty && head.value(for: "Content-Length") == "5000")
  }

  @Test func data_route_declares_the_digests_asked_for_and_wrong_ones_while_faulty() throws {
    let server = try FaultServer.started()
    defer { server.stop() }
    let target = "/data/declared?size=5000&seed=3&declare=repr-sha-512,content-sha-256,goog-md5"

    let full = try RawHTTP.request("GET", target, port: server.port)
    let whole = DeclaredDigestFields.digests(seed: 3, range: 0..<5000)
    #expect(
      ServerDigests.declared(by: ResponseHead(status: full.status, headers: full.headers))
        == [
          ExpectedDigest(
            algorithm: .sha512, hex: whole[.sha512]!, source: "server:repr-digest:sha-512"),
          ExpectedDigest(
            algorithm: .sha256, hex: whole[.sha256]!, source: "server:content-digest:sha-256"),
          ExpectedDigest(algorithm: .md5, hex: whole[.md5]!, source: "server:x-goog-hash:md5"),
        ])

    let part = try RawHTTP.request(
      "GET", target, port: server.port, headers: ["Range": "bytes=1000-"])
    #expect(part.status == 206)
    let partDigest = DeclaredDigestFields.digests(seed: 3, range: 1000..<5000)[.sha256]!
    #expect(
      part.value(for: "Content-Digest")
        == "sha-256=:\(DeclaredDigestFields.base64(partDigest)):")

    let wrong = try RawHTTP.request(
      "GET", target + "&declareWrong=1&times=1", port: server.port)
    let declared = ServerDigests.declared(
      by: ResponseHead(status: wrong.status, headers: wrong.headers))
    #expect(declared.count == 3)
    #expect(declared.allSatisfy { whole[$0.algorithm] != $0.hex })
    let right = try RawHTTP.request(
      "GET", target + "&declareWrong=1&times=1", port: server.port)
    let again = ServerDigests.declared(
      by: ResponseHead(status: right.status, headers: right.headers))
    #expect(again.count == 3)
    #expect(again.allSatisfy { whole[$0.algorithm] == $0.hex })
  }

  @Test func faults_apply_for_the_first_times_requests_only() throws {
    let server = try FaultServer.started()
    defer { server.stop() }
    let target = "/data/flaky?size=100&seed=1&status=503&times=2&retryAfter=7"
    for _ in 0..<2 {
      let answer = try RawHTTP.request("GET", target, port: server.port)
      #expect(answer.status == 503)
      #expect(answer.value(for: "Retry-After") == "7")
    }
    #expect(try RawHTTP.request("GET", target, port: server.port).status == 200)
    #expect(server.requests(pathPrefix: "/data/flaky").map(\.status) == [503, 503, 200])
  }

  @Test func drop_lie_and_changing_etag_shape_the_body() throws {
    let server = try FaultServer.started()
    defer { server.stop() }
    let dropped = try RawHTTP.request("GET", "/data/d?size=1000&drop=100", port: server.port)
    #expect(dropped.value(for: "Content-Length") == "1000")
    #expect(dropped.body.count == 100)

    let lying = try RawHTTP.request("GET", "/data/l?size=1000&lie=10", port: server.port)
    #expect(lying.value(for: "Content-Length") == "1010")
    #expect(lying.body.count == 1000)

    let first = try RawHTTP.request("GET", "/data/c?size=64&etag=changing", port: server.port)
    let second = try RawHTTP.request("GET", "/data/c?size=64&etag=changing", port: server.port)
    #expect(first.value(for: "ETag") != second.value(for: "ETag"))
    #expect(first.body != second.body)
  }

  @Test func redirects_loops_echo_and_big_headers() throws {
    let server = try FaultServer.started()
    defer { server.stop() }
    let to = FaultServer.percentEncoded("http://127.0.0.2:9/x?a=1")
    let redirect = try RawHTTP.request("GET", "/data/r?redirect=\(to)&code=307", port: server.port)
    #expect(redirect.status == 307)
    #expect(redirect.value(for: "Location") == "http://127.0.0.2:9/x?a=1")

    let loop = try RawHTTP.request("GET", "/loop/a?loop=1&hop=4", port: server.port)
    #expect(loop.status == 302)
    #expect(loop.value(for: "Location") == "\(server.origin)/loop/a?loop=1&hop=5")

    let echo = try RawHTTP.request("GET", "/echo?q=1", port: server.port, headers: ["X-Test": "v"])
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(echo.body)) as? [String: Any])
    #expect(object["method"] as? String == "GET")
    #expect(object["path"] as? String == "/echo?q=1")
    #expect((object["headers"] as? [String: String])?["x-test"] == "v")

    let big = try RawHTTP.request("HEAD", "/data/b?size=1&bigHeaders=300000", port: server.port)
    #expect(big.headers.count > 290)
  }

  @Test func uploads_are_recorded_by_length_and_digest() throws {
    let server = try FaultServer.started()
    defer { server.stop() }
    let body = TestContent.bytes(seed: 5, count: 70_000)
    let answer = try RawHTTP.request("POST", "/upload/u1", port: server.port, body: body)
    #expect(answer.status == 201)
    let upload = try #require(server.upload(named: "u1"))
    #expect(upload.length == 70_000)
    #expect(upload.sha256 == SHA256.hex(of: body))
    #expect(upload.method == "POST")
  }

  @Test func without_records_still_counts_hits_and_concurrency() throws {
    let server = try FaultServer.started(recordsRequests: false)
    defer { server.stop() }
    let target = "/data/quiet?size=10&status=429&times=1"
    #expect(try RawHTTP.request("GET", target, port: server.port).status == 429)
    #expect(try RawHTTP.request("GET", target, port: server.port).status == 200)
    #expect(server.requests.isEmpty)
    #expect(server.maxInFlight == 1)
  }

  @Test func restarts_on_the_same_port() throws {
    let server = try FaultServer.started()
    defer { server.stop() }
    let port = server.port
    server.stop()
    #expect(throws: RawHTTP.Failure.self) { try RawHTTP.request("GET", "/echo", port: port) }
    try server.start()
    #expect(server.port == port)
    #expect(try RawHTTP.request("GET", "/echo", port: port).status == 200)
  }

  @Test func counts_requests_in_flight_per_prefix() async throws {
    let server = try FaultServer.started()
    defer { server.stop() }
    let port = server.port
    // Real threads: the blocking raw client would be serialized on a small task pool.
    let done = DispatchGroup()
    let counts = Mutex<[Int]>([])
    for i in 0..<3 {
      done.enter()
      Thread {
        let count = try? RawHTTP.request("GET", "/data/fl-\(i)?size=300&drip=1000", port: port)
        counts.withLock { $0.append(count?.body.count ?? -1) }
        done.leave()
      }.start()
    }
    try await onOwnThread { done.wait() }
    #expect(counts.withLock { $0 } == [300, 300, 300])
    #expect(server.maxInFlight(pathPrefix: "/data/fl-") == 3)
    #expect(server.maxInFlight(pathPrefix: "/data/other") == 0)
    #expect(server.inFlight == 0)
  }
}
