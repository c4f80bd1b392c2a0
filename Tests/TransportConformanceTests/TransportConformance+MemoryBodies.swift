import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// An upload body held in memory (`RequestBody(bytes:)`, a multipart upload's list of parts):
/// exactly its bytes arrive, with their length, by every method and size, also sent again
/// after a redirect and at a capped rate.
extension TransportConformance {
  /// Small enough to go with the request head, large enough to go through the read callback,
  /// larger than the size that waits for `100 Continue`, and empty.
  static let memoryBodySizes: [(name: String, count: Int)] = [
    ("small", 1_234), ("medium", (64 << 10) + 3), ("large", (1 << 20) + 17), ("empty", 0),
  ]

  static func memoryBody(seed: UInt64, count: Int) -> [UInt8] {
    TestContent.bytes(seed: seed, count: count)
  }

  @Test(arguments: TransportKind.allCases)
  func bytes_in_memory_arrive_whole_with_their_length(_ kind: TransportKind) async throws {
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          for (size, body) in Self.memoryBodySizes.enumerated() {
            let bytes = Self.memoryBody(seed: 80 + UInt64(size), count: body.count)
            for method in ["PUT", "POST"] {
              let name = "\(body.name)-\(method)"
              let sink = try FileTestSink(path: scratch.file(name + ".response"))
              let response = try await transport.perform(
                TransferRequest(
                  url: server.url("/upload/\(name)"), method: method,
                  headers: [HTTPField("Content-Type", "application/xml")],
                  body: RequestBody(bytes: bytes), stallTimeout: 10, connectTimeout: 5),
                sink: sink)
              #expect(response.head.status == 201, "\(name)")
              #expect(response.sentBytes == Int64(bytes.count), "\(name)")
              let upload = try #require(server.upload(named: name))
              #expect(upload.method == method)
              #expect(upload.length == Int64(bytes.count), "\(name)")
              #expect(upload.sha256 == SHA256.hex(of: bytes), "\(name)")
              #expect(upload.headers.value(for: "Content-Length") == String(bytes.count))
              #expect(upload.headers.value(for: "Content-Type") == "application/xml")
            }
          }
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func bytes_in_memory_redirected_by_307_are_sent_again_whole(_ kind: TransportKind)
    async throws
  {
    let bytes = Self.memoryBody(seed: 90, count: 200_003)
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let response = try await Exchange.perform(
            TransferRequest(
              url: server.url("/upload/first?redirect=%2Fupload%2Fsecond&code=307"),
              method: "POST", body: RequestBody(bytes: bytes), stallTimeout: 10,
              connectTimeout: 5),
            on: transport, sink: try FileTestSink(path: scratch.file("response")))
          #expect(response.head.status == 201)
          let stored = try #require(server.upload(named: "second"))
          #expect(stored.length == Int64(bytes.count))
          #expect(stored.sha256 == SHA256.hex(of: bytes))
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func bytes_in_memory_go_at_a_capped_rate_too(_ kind: TransportKind) async throws {
    let bytes = Self.memoryBody(seed: 91, count: 300_001)
    try await withFaultServer { server in
      try await kind.withTransport(TransportOptions(maxBytesPerSecond: 4_000_000)) { transport in
        try await withScratch { scratch in
          let response = try await transport.perform(
            TransferRequest(
              url: server.url("/upload/capped"), method: "PUT", body: RequestBody(bytes: bytes),
              stallTimeout: 10, connectTimeout: 5),
            sink: try FileTestSink(path: scratch.file("response")))
          #expect(response.head.status == 201)
          let stored = try #require(server.upload(named: "capped"))
          #expect(stored.length == Int64(bytes.count))
          #expect(stored.sha256 == SHA256.hex(of: bytes))
        }
      }
    }
  }
}
