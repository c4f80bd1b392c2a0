import Foundation
import HaulCore
import HaulTestSupport
import Testing

extension TransportConformance {
  @Test(arguments: TransportKind.allCases)
  func downloads_a_small_file_from_nginx_exactly(_ kind: TransportKind) async throws {
    try await NginxFixture.with { nginx in
      let sha = try nginx.createFile("small.bin", size: 100_000, seed: 1)
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let sink = try FileTestSink(path: scratch.file("small.bin"))
          let response = try await transport.perform(
            .download(nginx.url("/small.bin")), sink: sink)
          #expect(response.head.status == 200)
          #expect(response.bodyBytes == 100_000)
          #expect(sink.finish() == sha)
          #expect(
            FileDigest(path: scratch.file("small.bin")) == FileDigest(length: 100_000, sha256: sha))
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func downloads_a_64_mib_file_from_nginx_exactly(_ kind: TransportKind) async throws {
    let size: Int64 = 64 << 20
    try await NginxFixture.with { nginx in
      let sha = try nginx.createFile("big/64m.bin", size: size, seed: 64)
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let sink = try FileTestSink(path: scratch.file("64m.bin"))
          let response = try await transport.perform(
            .download(nginx.url("/big/64m.bin")), sink: sink)
          #expect(response.head.status == 200)
          #expect(response.head.contentLength == size)
          #expect(response.bodyBytes == size)
          #expect(sink.finish() == sha)
          #expect(
            FileDigest(path: scratch.file("64m.bin")) == FileDigest(length: size, sha256: sha))
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func downloads_from_the_fault_server_with_its_validators_asking_for_no_encoding(
    _ kind: TransportKind
  ) async throws {
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let sink = try FileTestSink(path: scratch.file("f.bin"))
          let response = try await transport.perform(
            .download(server.dataURL("plain", size: 300_000, seed: 7)), sink: sink)
          #expect(response.head.status == 200)
          #expect(response.head.value(for: "ETag") != nil)
          #expect(response.head.value(for: "Last-Modified") != nil)
          #expect(sink.finish() == TestContent.sha256(seed: 7, count: 300_000))
          let records = server.requests(pathPrefix: "/data/plain")
          #expect(records.count == 1)
          let record = try #require(records.first)
          #expect(record.method == "GET")
          // No encoding may be asked for; `identity` says exactly that (URLSession on Linux
          // cannot leave the header out, so it sends `identity`).
          #expect(
            [nil, "identity"].contains(record.value(for: "Accept-Encoding")),
            "a transport must not ask for encodings")
          #expect(record.value(for: "Range") == nil)
          #expect(record.value(for: "Cookie") == nil)
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func downloads_a_chunked_body_exactly(_ kind: TransportKind) async throws {
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let sink = try FileTestSink(path: scratch.file("chunked.bin"))
          let url = server.dataURL("chunked", size: 700_000, seed: 8, options: ["chunked": "1"])
          let response = try await transport.perform(.download(url), sink: sink)
          #expect(response.head.status == 200)
          #expect(response.head.contentLength == nil)
          #expect(response.bodyBytes == 700_000)
          #expect(sink.finish() == TestContent.sha256(seed: 8, count: 700_000))
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func reuses_one_connection_for_sequential_requests(_ kind: TransportKind) async throws {
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          for i in 0..<3 {
            let sink = try FileTestSink(path: scratch.file("r\(i).bin"))
            let response = try await transport.perform(
              .download(server.dataURL("reuse-\(i)", size: 10_000, seed: UInt64(i))), sink: sink)
            #expect(response.head.status == 200)
          }
          let connections = Set(server.requests(pathPrefix: "/data/reuse-").map(\.connectionID))
          #expect(connections.count == 1, "keep-alive connections should be reused")
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func times_the_wait_for_the_first_byte_and_tells_a_new_connection_from_a_reused_one(
    _ kind: TransportKind
  ) async throws {
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          var timings: [TransferTiming] = []
          for i in 0..<2 {
            let sink = try FileTestSink(path: scratch.file("t\(i).bin"))
            let url = server.dataURL(
              "timed-\(i)", size: 1_000, seed: UInt64(i), options: ["wait": "0.3"])
            let response = try await transport.perform(.download(url), sink: sink)
            timings.append(try #require(response.timing))
          }
          for timing in timings {
            // The server waits 0.3 s before its head. Its clock and the transport's start at
            // slightly different moments of the request, so the bound leaves room for that:
            // what it checks is that the wait is timed, which load can only lengthen.
            #expect(timing.firstByte >= 0.25)
            #expect(timing.answer >= timing.firstByte)
            #expect(timing.total >= timing.answer)
          }
          switch kind {
          case .curl:
            #expect(timings.map(\.openedConnection) == [true, false])
            // The first exchange connected before its request went out.
            #expect(timings[0].waited > 0)
          case .urlsession:
            #expect(timings.map(\.openedConnection) == [nil, nil])
            #expect(timings.map(\.waited) == [0, 0])
          }
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func runs_exchanges_in_parallel_within_the_per_host_connection_limit(_ kind: TransportKind)
    async throws
  {
    try await withFaultServer { server in
      let options = TransportOptions(maxConnections: 8, maxConnectionsPerHost: 2)
      try await kind.withTransport(options) { transport in
        try await withScratch { scratch in
          try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<5 {
              let url = server.dataURL(
                "par-\(i)", size: 20_000, seed: UInt64(i), options: ["drip": "50000"])
              let sink = try FileTestSink(path: scratch.file("par-\(i).bin"))
              group.addTask {
                let response = try await transport.perform(.download(url), sink: sink)
                #expect(response.head.status == 200)
                #expect(sink.finish() == TestContent.sha256(seed: UInt64(i), count: 20_000))
              }
            }
            try await group.waitForAll()
          }
          #expect(server.requests(pathPrefix: "/data/par-").count == 5)
          #expect(server.maxInFlight(pathPrefix: "/data/par-") == 2)
        }
      }
    }
  }
}
