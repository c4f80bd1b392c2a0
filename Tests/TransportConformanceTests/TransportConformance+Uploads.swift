import Foundation
import HaulCore
import HaulTestSupport
import Testing

extension TransportConformance {
  @Test(arguments: TransportKind.allCases)
  func uploads_a_file_to_nginx_with_put_streamed(_ kind: TransportKind) async throws {
    let size: Int64 = 5 << 20
    try await NginxFixture.with { nginx in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let source = scratch.file("up.bin")
          let sha = try TestContent.writeFile(at: source, seed: 21, count: size)
          let sink = try FileTestSink(path: scratch.file("response"))
          let response = try await transport.perform(
            .upload(nginx.url("/upload/dir/up.bin"), method: "PUT", path: source, length: size),
            sink: sink)
          #expect(response.head.status == 201)
          #expect(response.sentBytes == size)
          #expect(sink.sentBytes == size, "upload progress should reach the body's length")
          #expect(nginx.fileDigest("upload/dir/up.bin") == FileDigest(length: size, sha256: sha))
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func uploads_a_file_to_the_fault_server_with_post_streamed_with_its_length(_ kind: TransportKind)
    async throws
  {
    let size: Int64 = 3 << 20
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let source = scratch.file("post.bin")
          let sha = try TestContent.writeFile(at: source, seed: 22, count: size)
          let sink = try FileTestSink(path: scratch.file("response"))
          let response = try await transport.perform(
            .upload(server.url("/upload/post-1"), method: "POST", path: source, length: size),
            sink: sink)
          #expect(response.head.status == 201)
          #expect(response.sentBytes == size)
          #expect(sink.sentBytes == size, "upload progress should reach the body's length")
          let upload = try #require(server.upload(named: "post-1"))
          #expect(upload.method == "POST")
          #expect(upload.length == size)
          #expect(upload.sha256 == sha)
          #expect(upload.headers.value(for: "Content-Length") == String(size))
        }
      }
    }
  }
}

extension TransportConformance {
  @Test(arguments: TransportKind.allCases)
  func a_small_put_goes_without_expect_and_a_large_one_waits_for_continue(_ kind: TransportKind)
    async throws
  {
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let sizes: [(String, Int64)] = [
            ("small", 16 << 10), ("limit", 1 << 20), ("large", 2 << 20),
          ]
          for (name, size) in sizes {
            let source = scratch.file(name)
            _ = try TestContent.writeFile(at: source, seed: 23, count: size)
            let response = try await transport.perform(
              .upload(server.url("/upload/\(name)"), method: "PUT", path: source, length: size),
              sink: try FileTestSink(path: scratch.file(name + ".response")))
            #expect(response.head.status == 201)
          }
          let small = try #require(server.upload(named: "small"))
          let limit = try #require(server.upload(named: "limit"))
          let large = try #require(server.upload(named: "large"))
          #expect(small.headers.value(for: "Expect") == nil)
          #expect(limit.headers.value(for: "Expect") == nil)
          // The URLSession transport never sends `Expect` (docs/behaviour.md, "HTTP/2").
          let expected = kind == .curl ? "100-continue" : nil
          #expect(large.headers.value(for: "Expect") == expected)
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func a_small_put_refused_at_once_with_a_reset_ends_in_the_refusal(_ kind: TransportKind)
    async throws
  {
    try kind.skip(
      on: .urlsession,
      because: "it sends no Expect and cannot re-send, so the reset costs it the answer")
    let size: Int64 = 16 << 10
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let source = scratch.file("up.bin")
          _ = try TestContent.writeFile(at: source, seed: 24, count: size)
          let response = try await transport.perform(
            .upload(
              server.url("/upload/missing/up.bin?refuse=409"), method: "PUT", path: source,
              length: size),
            sink: try FileTestSink(path: scratch.file("response")))
          #expect(response.head.status == 409)
          // Sent at once, reset with the answer lost, then once more waiting for the answer.
          let requests = server.requests(pathPrefix: "/upload/")
          #expect(requests.map { $0.value(for: "Expect") } == [nil, "100-continue"])
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func a_small_put_reset_before_any_answer_is_sent_again_whole(_ kind: TransportKind)
    async throws
  {
    try kind.skip(
      on: .urlsession,
      because: "it sends no Expect and cannot re-send, so the reset costs it the answer")
    let size: Int64 = 16 << 10
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let source = scratch.file("up.bin")
          let sha = try TestContent.writeFile(at: source, seed: 25, count: size)
          let sink = try FileTestSink(path: scratch.file("response"))
          let response = try await transport.perform(
            .upload(
              server.url("/upload/once?refuse=409&times=1"), method: "PUT", path: source,
              length: size),
            sink: sink)
          #expect(response.head.status == 201)
          #expect(response.sentBytes == size)
          #expect(sink.heads.map(\.status) == [201], "the lost answer reached no sink")
          let upload = try #require(server.upload(named: "once"))
          #expect(upload.length == size)
          #expect(upload.sha256 == sha)
          #expect(upload.headers.value(for: "Expect") == "100-continue")
          #expect(server.requests(pathPrefix: "/upload/").count == 2)
        }
      }
    }
  }
}

extension TransportConformance {
  /// libcurl sends a request again on a new connection when a reused one closes before any
  /// answer, and rewinds the body for it: the server must then get the whole body once more.
  /// The fault server reads the first send's body whole (`drop` at its length), so the close
  /// comes after it and not as a reset in the middle, which libcurl would not retry.
  @Test(arguments: TransportKind.allCases)
  func an_upload_whose_reused_connection_closes_unanswered_is_sent_again_whole(
    _ kind: TransportKind
  ) async throws {
    let size: Int64 = 200 << 10
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          _ = try await transport.perform(
            .download(server.dataURL("warm", size: 1000, seed: 28)),
            sink: try FileTestSink(path: scratch.file("warm")))
          let source = scratch.file("again.bin")
          let sha = try TestContent.writeFile(at: source, seed: 28, count: size)
          let sink = try FileTestSink(path: scratch.file("response"))
          let response = try await transport.perform(
            .upload(
              server.url("/upload/again?drop=\(size)&times=1"), method: "PUT", path: source,
              length: size),
            sink: sink)
          #expect(response.head.status == 201)
          let upload = try #require(server.upload(named: "again"))
          #expect(upload.length == size)
          #expect(upload.sha256 == sha)
          let warm = server.requests(pathPrefix: "/data/warm").map(\.connectionID)
          let sends = server.requests(pathPrefix: "/upload/again").map(\.connectionID)
          #expect(sends.count == 2)
          #expect(sends.first == warm.first, "the first send should reuse the connection")
        }
      }
    }
  }
}

extension TransportConformance {
  @Test(arguments: TransportKind.allCases)
  func a_small_body_arrives_whole_with_no_type_added_to_a_put(_ kind: TransportKind)
    async throws
  {
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          for (method, size) in [("PUT", Int64(16 << 10)), ("POST", 1), ("PUT", (64 << 10) - 1)] {
            let name = "\(method.lowercased())-\(size)"
            let source = scratch.file(name)
            let sha = try TestContent.writeFile(at: source, seed: 26, count: size)
            let sink = try FileTestSink(path: scratch.file(name + ".response"))
            let response = try await transport.perform(
              .upload(server.url("/upload/\(name)"), method: method, path: source, length: size),
              sink: sink)
            #expect(response.head.status == 201)
            #expect(response.sentBytes == size)
            #expect(sink.sentBytes == size, "upload progress should reach the body's length")
            let upload = try #require(server.upload(named: name))
            #expect(upload.method == method)
            #expect(upload.length == size)
            #expect(upload.sha256 == sha)
            let type = upload.headers.value(for: "Content-Type")
            #expect(type == (method == "POST" ? "application/octet-stream" : nil), "\(name)")
          }
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func a_body_file_shorter_than_its_stated_length_fails_as_io(_ kind: TransportKind)
    async throws
  {
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          for size in [Int64(16 << 10), 2 << 20] {
            let source = scratch.file("short-\(size)")
            _ = try TestContent.writeFile(at: source, seed: 27, count: size - 100)
            await #expect(throws: TransferError.self) {
              _ = try await transport.perform(
                .upload(
                  server.url("/upload/short-\(size)"), method: "PUT", path: source,
                  length: size),
                sink: try FileTestSink(path: scratch.file("short-\(size).response")))
            }
            #expect(server.upload(named: "short-\(size)") == nil, "nothing stored for \(size)")
          }
        }
      }
    }
  }
}
