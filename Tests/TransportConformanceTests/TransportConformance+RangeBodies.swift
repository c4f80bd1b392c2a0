import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// An upload body that is a byte range of its file (an S3 part, a resumable upload's chunk):
/// exactly the range's bytes arrive, with the range's length, by every method and size.
extension TransportConformance {
  @Test(arguments: TransportKind.allCases)
  func a_put_sends_a_range_from_the_middle_of_its_file_to_nginx(_ kind: TransportKind)
    async throws
  {
    let size: Int64 = 8 << 20
    let offset: Int64 = (3 << 20) + 12_345
    let length: Int64 = (3 << 20) + 777
    try await NginxFixture.with { nginx in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let source = scratch.file("whole.bin")
          try TestContent.writeFile(at: source, seed: 71, count: size)
          let sink = try FileTestSink(path: scratch.file("response"))
          let response = try await transport.perform(
            .upload(
              nginx.url("/upload/range/part.bin"), method: "PUT", path: source, offset: offset,
              length: length),
            sink: sink)
          #expect(response.head.status == 201)
          #expect(response.sentBytes == length)
          #expect(sink.sentBytes == length, "upload progress should reach the range's length")
          let expected = TestContent.sha256(seed: 71, count: length, offset: offset)
          #expect(
            nginx.fileDigest("upload/range/part.bin")
              == FileDigest(length: length, sha256: expected))
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func ranges_of_every_size_arrive_whole_with_their_length(_ kind: TransportKind) async throws {
    let size: Int64 = 3 << 20
    // A range small enough to go with the request head, one at the end of the file, and a
    // large one that waits for 100 Continue, each by PUT and by POST.
    let ranges: [(name: String, offset: Int64, length: Int64)] = [
      ("small", 1_000_003, 16 << 10), ("tail", size - 70_001, 70_001),
      ("large", 1, (2 << 20) + 5),
    ]
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let source = scratch.file("whole.bin")
          try TestContent.writeFile(at: source, seed: 72, count: size)
          for range in ranges {
            for method in ["PUT", "POST"] {
              let name = "\(range.name)-\(method)"
              let response = try await transport.perform(
                .upload(
                  server.url("/upload/\(name)"), method: method, path: source,
                  offset: range.offset, length: range.length),
                sink: try FileTestSink(path: scratch.file(name + ".response")))
              #expect(response.head.status == 201, "\(name)")
              let upload = try #require(server.upload(named: name))
              #expect(upload.method == method)
              #expect(upload.length == range.length, "\(name)")
              #expect(
                upload.sha256
                  == TestContent.sha256(seed: 72, count: range.length, offset: range.offset),
                "\(name)")
              #expect(upload.headers.value(for: "Content-Length") == String(range.length))
            }
          }
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func a_range_redirected_by_307_is_sent_again_from_its_own_first_byte(_ kind: TransportKind)
    async throws
  {
    let offset: Int64 = 500_000
    let length: Int64 = 1 << 20
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let source = scratch.file("whole.bin")
          try TestContent.writeFile(at: source, seed: 73, count: 2 << 20)
          let response = try await Exchange.perform(
            .upload(
              server.url("/upload/first?redirect=%2Fupload%2Fsecond&code=307"), method: "PUT",
              path: source, offset: offset, length: length),
            on: transport, sink: try FileTestSink(path: scratch.file("response")))
          #expect(response.head.status == 201)
          let stored = try #require(server.upload(named: "second"))
          #expect(stored.length == length)
          #expect(stored.sha256 == TestContent.sha256(seed: 73, count: length, offset: offset))
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func a_range_past_the_end_of_its_file_fails_with_io_and_sends_no_body(_ kind: TransportKind)
    async throws
  {
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let source = scratch.file("short.bin")
          try TestContent.writeFile(at: source, seed: 74, count: 100_000)
          for (name, length) in [("small", Int64(1_000)), ("large", Int64(1 << 20))] {
            let sink = try FileTestSink(path: scratch.file(name + ".response"))
            let error = await failure { () async throws(TransferError) in
              try await transport.perform(
                .upload(
                  server.url("/upload/\(name)"), method: "PUT", path: source, offset: 99_500,
                  length: length),
                sink: sink)
            }
            #expect(error?.code == .io, "\(name): \(String(describing: error))")
            #expect(server.upload(named: name) == nil, "\(name)")
          }
        }
      }
    }
  }
}
