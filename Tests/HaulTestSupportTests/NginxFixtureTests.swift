import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// The nginx fixture's own behaviour, checked over a raw socket.
@Suite struct NginxFixtureTests {
  @Test func serves_files_accepts_puts_and_logs_requests() async throws {
    try await NginxFixture.with { nginx in
      let sha = try nginx.createFile("dir/f.bin", size: 10_000, seed: 4)
      #expect(sha == TestContent.sha256(seed: 4, count: 10_000))
      let get = try RawHTTP.request("GET", "/dir/f.bin", port: nginx.port)
      #expect(get.status == 200)
      #expect(get.value(for: "ETag") != nil)
      #expect(get.body == TestContent.bytes(seed: 4, count: 10_000))

      let body = TestContent.bytes(seed: 8, count: 5000)
      let put = try RawHTTP.request("PUT", "/upload/a/b.bin", port: nginx.port, body: body)
      #expect(put.status == 201)
      let stored = try #require(nginx.fileDigest("upload/a/b.bin"))
      #expect(stored == FileDigest(length: 5000, sha256: SHA256.hex(of: body)))

      let log = nginx.accessLog(atLeast: 2)
      #expect(log.map(\.method) == ["GET", "PUT"])
      #expect(log.first?.uri == "/dir/f.bin")
    }
  }

  @Test func tls_mode_adds_an_https_port_and_cross_scheme_redirects() async throws {
    try await NginxFixture.with(tls: true) { nginx in
      let tlsPort = try #require(nginx.tlsPort)
      #expect(FileManager.default.fileExists(atPath: try #require(nginx.certificatePath)))
      let up = try RawHTTP.request("GET", "/to-https/x.bin", port: nginx.port)
      #expect(up.status == 302)
      #expect(up.value(for: "Location") == "https://127.0.0.1:\(tlsPort)/x.bin")
    }
  }

  @Test func stop_ends_nginx_and_removes_its_directory() async throws {
    let nginx = try await onOwnThread { try NginxFixture.start() }
    let port = nginx.port
    try await onOwnThread { nginx.stop() }
    #expect(!FileManager.default.fileExists(atPath: nginx.directory.path))
    #expect(throws: RawHTTP.Failure.self) { try RawHTTP.request("GET", "/", port: port) }
  }
}
