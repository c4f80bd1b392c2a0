import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// Redirects are followed by `Exchange` (core), identically for every transport; these cases
/// check that each transport returns redirects as they are and that the rules hold end to end.
extension TransportConformance {
  static let ownHeaders = [
    HTTPField("Authorization", "Bearer s3cret"), HTTPField("X-Manifest-Header", "m"),
  ]

  @Test(arguments: TransportKind.allCases, ["127.0.0.2", "127.0.0.1"])
  func a_redirect_to_another_origin_carries_none_of_the_transfers_own_headers(
    _ kind: TransportKind, otherHost: String
  )
    async throws
  {
    // 127.0.0.2 is another host; 127.0.0.1 (on another port) is another origin too.
    try await withFaultServer { server in
      try await withFaultServer(host: otherHost) { other in
        try await kind.withTransport { transport in
          try await withScratch { scratch in
            let target = other.dataURL("target", size: 20_000, seed: 51)
            let start = server.url(
              "/data/start?redirect=\(FaultServer.percentEncoded(target.absoluteString))")
            let sink = try FileTestSink(path: scratch.file("cross.bin"))
            let response = try await Exchange.perform(
              .download(start, headers: Self.ownHeaders), on: transport, sink: sink)
            #expect(response.head.status == 200)
            #expect(sink.finish() == TestContent.sha256(seed: 51, count: 20_000))
            let first = try #require(server.requests(pathPrefix: "/data/start").first)
            #expect(first.value(for: "Authorization") == "Bearer s3cret")
            #expect(first.value(for: "X-Manifest-Header") == "m")
            let hop = try #require(other.requests(pathPrefix: "/data/target").first)
            #expect(hop.value(for: "Authorization") == nil)
            #expect(hop.value(for: "X-Manifest-Header") == nil)
          }
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func a_redirect_to_the_same_origin_keeps_the_transfers_own_headers(_ kind: TransportKind)
    async throws
  {
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let start = server.url("/data/a?redirect=%2Fdata%2Fb%3Fsize%3D1000%26seed%3D52&code=307")
          let sink = try FileTestSink(path: scratch.file("same.bin"))
          let response = try await Exchange.perform(
            .download(start, headers: Self.ownHeaders), on: transport, sink: sink)
          #expect(response.head.status == 200)
          #expect(sink.heads.map(\.status) == [307, 200])
          #expect(sink.finish() == TestContent.sha256(seed: 52, count: 1000))
          let hop = try #require(server.requests(pathPrefix: "/data/b").first)
          #expect(hop.value(for: "Authorization") == "Bearer s3cret")
          #expect(hop.value(for: "X-Manifest-Header") == "m")
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func a_redirect_to_ftp_is_refused(_ kind: TransportKind) async throws {
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let sink = try FileTestSink(path: scratch.file("ftp.bin"))
          let start = server.url(
            "/data/ftp?redirect=\(FaultServer.percentEncoded("ftp://127.0.0.1/x"))")
          let error = await failure { () async throws(TransferError) in
            try await Exchange.perform(.download(start), on: transport, sink: sink)
          }
          #expect(error?.code == .redirectRefused, "\(String(describing: error))")
          #expect(contents(of: scratch.file("ftp.bin")).isEmpty)
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func a_redirect_loop_stops_after_10_hops(_ kind: TransportKind) async throws {
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let sink = try FileTestSink(path: scratch.file("loop.bin"))
          let error = await failure { () async throws(TransferError) in
            try await Exchange.perform(
              .download(server.url("/loop/x?loop=1")), on: transport, sink: sink)
          }
          #expect(error?.code == .redirectRefused, "\(String(describing: error))")
          // The first request and 10 followed hops; the 11th redirect is refused.
          #expect(server.requests(pathPrefix: "/loop/x").count == 11)
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func an_upload_redirected_by_307_to_the_same_origin_re_sends_the_body_from_its_first_byte(
    _ kind: TransportKind
  ) async throws {
    let size: Int64 = 1 << 20
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let source = scratch.file("up.bin")
          let sha = try TestContent.writeFile(at: source, seed: 53, count: size)
          let sink = try FileTestSink(path: scratch.file("response"))
          let response = try await Exchange.perform(
            .upload(
              server.url("/upload/first?redirect=%2Fupload%2Fsecond&code=307"), method: "POST",
              path: source, length: size),
            on: transport, sink: sink)
          #expect(response.head.status == 201)
          let stored = try #require(server.upload(named: "second"))
          #expect(stored.length == size)
          #expect(stored.sha256 == sha)
          #expect(stored.method == "POST")
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func an_https_origin_is_never_redirected_to_http(_ kind: TransportKind) async throws {
    try kind.skip(
      on: .urlsession,
      because: "URLSessionTransport cannot trust the test server's CA file (URLSession on "
        + "Linux has no way to add one), so the https origin is unreachable; the rule itself "
        + "lives in Exchange and is checked through curl")
    try await NginxFixture.with(tls: true) { nginx in
      try nginx.createFile("plain.bin", size: 1000, seed: 54)
      let options = TransportOptions(extraCACertificates: nginx.certificatePath)
      try await kind.withTransport(options) { transport in
        try await withScratch { scratch in
          let sink = try FileTestSink(path: scratch.file("down.bin"))
          let error = await failure { () async throws(TransferError) in
            try await Exchange.perform(
              .download(nginx.httpsURL("/to-http/plain.bin")), on: transport, sink: sink)
          }
          #expect(error?.code == .redirectRefused, "\(String(describing: error))")
          // Only the https request was made; the http hop never was.
          #expect(nginx.accessLog(atLeast: 1).map(\.uri) == ["/to-http/plain.bin"])
        }
      }
    }
  }
}
