import Foundation
import HaulCore
import HaulTestSupport
import Testing

extension TransportConformance {
  @Test(
    arguments: TransportKind.allCases
  )
  func resumes_from_an_offset_on_nginx_with_if_range_206_appended(_ kind: TransportKind)
    async throws
  {
    let size: Int64 = 2 << 20
    let offset: Int64 = 700_000
    try await NginxFixture.with { nginx in
      let sha = try nginx.createFile("resume.bin", size: size, seed: 31)
      let etag = try #require(
        try RawHTTP.request("HEAD", "/resume.bin", port: nginx.port).value(for: "ETag"))
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let path = scratch.file("resume.bin")
          try write(TestContent.bytes(seed: 31, count: Int(offset)), to: path)
          let sink = try FileTestSink(path: path)
          let response = try await transport.perform(
            .download(
              nginx.url("/resume.bin"), range: ByteRange(start: offset), ifRange: etag),
            sink: sink)
          #expect(response.head.status == 206)
          #expect(response.bodyBytes == size - offset)
          #expect(sink.finish() == sha)
          #expect(FileDigest(path: path) == FileDigest(length: size, sha256: sha))
          // The HEAD above, then the ranged GET.
          #expect(nginx.accessLog(atLeast: 2).map(\.status) == [200, 206])
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func resumes_on_the_fault_server_sending_range_and_if_range_as_given(_ kind: TransportKind)
    async throws
  {
    let size: Int64 = 1 << 20
    let offset: Int64 = 123_457
    try await withFaultServer { server in
      let url = server.dataURL("resume", size: size, seed: 32)
      let etag = try #require(
        try RawHTTP.request("HEAD", url.relativePathAndQuery, port: server.port).value(
          for: "ETag"))
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let path = scratch.file("resume.bin")
          try write(TestContent.bytes(seed: 32, count: Int(offset)), to: path)
          let sink = try FileTestSink(path: path)
          let response = try await transport.perform(
            .download(url, range: ByteRange(start: offset), ifRange: etag), sink: sink)
          #expect(response.head.status == 206)
          #expect(
            response.head.value(for: "Content-Range") == "bytes \(offset)-\(size - 1)/\(size)")
          #expect(sink.finish() == TestContent.sha256(seed: 32, count: size))
          let record = try #require(server.requests(pathPrefix: "/data/resume").last)
          #expect(record.method == "GET")
          #expect(record.value(for: "Range") == "bytes=\(offset)-")
          #expect(record.value(for: "If-Range") == etag)
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func a_server_that_ignores_range_gets_a_200_and_the_file_restarts_from_zero(_ kind: TransportKind)
    async throws
  {
    let size: Int64 = 400_000
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let path = scratch.file("ignored.bin")
          // A stale prefix that is not the server's bytes: only a restart fixes it.
          try write(TestContent.bytes(seed: 999, count: 5000), to: path)
          let sink = try FileTestSink(path: path)
          let response = try await transport.perform(
            .download(
              server.dataURL("ignored", size: size, seed: 33, options: ["ignoreRange": "1"]),
              range: ByteRange(start: 5000)),
            sink: sink)
          #expect(response.head.status == 200)
          #expect(response.bodyBytes == size)
          let expected = TestContent.sha256(seed: 33, count: size)
          #expect(sink.finish() == expected)
          #expect(FileDigest(path: path) == FileDigest(length: size, sha256: expected))
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func a_changed_etag_answers_if_range_with_a_full_200_and_the_file_restarts_from_zero(
    _ kind: TransportKind
  ) async throws {
    let size: Int64 = 300_000
    let offset = 10_000
    try await withFaultServer { server in
      let url = server.dataURL("changing", size: size, seed: 34, options: ["etag": "changing"])
      // Hit 0: the validator and bytes a previous run saw.
      let first = try RawHTTP.request("HEAD", url.relativePathAndQuery, port: server.port)
      let oldETag = try #require(first.value(for: "ETag"))
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let path = scratch.file("changing.bin")
          let oldSeed = FaultServer.changingSeed(34, hit: 0)
          try write(TestContent.bytes(seed: oldSeed, count: offset), to: path)
          let sink = try FileTestSink(path: path)
          let response = try await transport.perform(
            .download(url, range: ByteRange(start: Int64(offset)), ifRange: oldETag), sink: sink)
          #expect(response.head.status == 200)
          #expect(response.head.value(for: "ETag") != oldETag)
          let expected = TestContent.sha256(
            seed: FaultServer.changingSeed(34, hit: 1), count: size)
          #expect(sink.finish() == expected)
          #expect(FileDigest(path: path) == FileDigest(length: size, sha256: expected))
        }
      }
    }
  }
}

extension URL {
  /// The path and query, as a request target.
  var relativePathAndQuery: String {
    path + (query.map { "?\($0)" } ?? "")
  }
}
