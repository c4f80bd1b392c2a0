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
