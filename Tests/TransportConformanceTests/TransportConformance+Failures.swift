import Foundation
import HaulCore
import HaulTestSupport
import Testing

extension TransportConformance {
  @Test(arguments: TransportKind.allCases)
  func a_body_shorter_than_its_content_length_is_a_protocol_error(_ kind: TransportKind)
    async throws
  {
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let sink = try FileTestSink(path: scratch.file("short.bin"))
          let url = server.dataURL("short", size: 50_000, seed: 41, options: ["lie": "1000"])
          let error = await failure { () async throws(TransferError) in
            try await transport.perform(.download(url), sink: sink)
          }
          #expect(error?.code == .protocol, "\(String(describing: error))")
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func malformed_chunking_is_a_protocol_error(_ kind: TransportKind) async throws {
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let sink = try FileTestSink(path: scratch.file("badchunk.bin"))
          let url = server.dataURL("badchunk", size: 50_000, seed: 48, options: ["badChunk": "1"])
          let error = await failure { () async throws(TransferError) in
            try await transport.perform(.download(url), sink: sink)
          }
          #expect(error?.code == .protocol, "\(String(describing: error))")
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func a_stalled_body_fails_with_timeout_near_the_stall_timeout(_ kind: TransportKind) async throws
  {
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let path = scratch.file("stall.bin")
          let sink = try FileTestSink(path: path)
          let url = server.dataURL(
            "stall", size: 100_000, seed: 42, options: ["stall": "10000", "stallSeconds": "30"])
          let error = await failure { () async throws(TransferError) in
            try await transport.perform(.download(url, stallTimeout: 1.5), sink: sink)
          }
          #expect(error?.code == .timeout, "\(String(describing: error))")
          #expect(contents(of: path) == TestContent.bytes(seed: 42, count: 10_000))
          // Timed by the server, from its last byte to the client's hang-up (the server
          // would hold the line for 30 s).
          let record = server.endedRequests(pathPrefix: "/data/stall").first
          let silence = try #require(record?.silenceBeforeEnd, "the server saw no hang-up")
          #expect(silence < 15, "a 1.5 s stall timeout hung up after \(silence) s of silence")
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func a_404_is_returned_as_such_and_its_body_is_not_written(_ kind: TransportKind) async throws {
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let path = scratch.file("missing.bin")
          let sink = try FileTestSink(path: path)
          let response = try await transport.perform(
            .download(server.url("/nothing/here")), sink: sink)
          #expect(response.head.status == 404)
          #expect(response.bodyBytes == 0)
          #expect(sink.heads.map(\.status) == [404])
          #expect(contents(of: path).isEmpty)
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func a_503_is_returned_with_its_retry_after_and_its_body_is_not_written(_ kind: TransportKind)
    async throws
  {
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let path = scratch.file("busy.bin")
          let sink = try FileTestSink(path: path)
          let url = server.dataURL(
            "busy", size: 1000, seed: 46, options: ["status": "503", "retryAfter": "7"])
          let response = try await transport.perform(.download(url), sink: sink)
          #expect(response.head.status == 503)
          #expect(response.head.value(for: "Retry-After") == "7")
          #expect(response.bodyBytes == 0)
          #expect(contents(of: path).isEmpty)
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func an_error_thrown_by_the_sink_ends_an_endless_body_with_that_error(_ kind: TransportKind)
    async throws
  {
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let sink = try FileTestSink(path: scratch.file("endless.bin"), bodyLimit: 1 << 20)
          let url = server.dataURL("endless", size: 0, seed: 47, options: ["endless": "1"])
          let error = await failure { () async throws(TransferError) in
            try await transport.perform(.download(url), sink: sink)
          }
          #expect(error?.code == .sizeMismatch, "\(String(describing: error))")
          #expect(FileDigest(path: scratch.file("endless.bin"))?.length ?? 0 <= 1 << 20)
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func a_header_block_over_256_kib_is_a_protocol_error(_ kind: TransportKind) async throws {
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let sink = try FileTestSink(path: scratch.file("big-head.bin"))
          let url = server.dataURL(
            "bighead", size: 100, seed: 43, options: ["bigHeaders": "300000"])
          let error = await failure { () async throws(TransferError) in
            try await transport.perform(.download(url), sink: sink)
          }
          #expect(error?.code == .protocol, "\(String(describing: error))")
        }
      }
    }
  }

  /// One field line longer than libcurl's 100 KiB line limit: libcurl refuses it with
  /// `CURLE_OUT_OF_MEMORY`, which must not read as a connection failure.
  @Test(arguments: TransportKind.allCases)
  func a_300_kib_header_line_is_a_protocol_error(_ kind: TransportKind) async throws {
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let sink = try FileTestSink(path: scratch.file("long-line.bin"))
          let url = server.dataURL(
            "longline", size: 100, seed: 45, options: ["headerLine": "307200"])
          let error = await failure { () async throws(TransferError) in
            try await transport.perform(.download(url), sink: sink)
          }
          #expect(error?.code == .protocol, "\(String(describing: error))")
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func a_header_block_under_256_kib_is_accepted(_ kind: TransportKind) async throws {
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let sink = try FileTestSink(path: scratch.file("head.bin"))
          let url = server.dataURL(
            "midhead", size: 100, seed: 44, options: ["bigHeaders": "100000"])
          let response = try await transport.perform(.download(url), sink: sink)
          #expect(response.head.status == 200)
          #expect(sink.finish() == TestContent.sha256(seed: 44, count: 100))
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func a_refused_connection_is_a_connection_error(_ kind: TransportKind) async throws {
    let refusing = try RefusingPort()
    try await kind.withTransport { transport in
      try await withScratch { scratch in
        let sink = try FileTestSink(path: scratch.file("refused.bin"))
        let url = URL(string: "http://127.0.0.1:\(refusing.port)/data/x")!
        let error = await failure { () async throws(TransferError) in
          try await transport.perform(.download(url), sink: sink)
        }
        #expect(error?.code == .connection, "\(String(describing: error))")
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func cancelling_a_slow_transfer_ends_it_promptly_keeping_the_bytes_written(_ kind: TransportKind)
    async throws
  {
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let path = scratch.file("slow.bin")
          let sink = try FileTestSink(path: path)
          let url = server.dataURL("slow", size: 10_000_000, seed: 45, options: ["drip": "20000"])
          let task = Task { () async throws(TransferError) -> TransferResponse in
            try await transport.perform(.download(url), sink: sink)
          }
          let deadline = ContinuousClock.now + .seconds(30)
          while sink.bodyBytes == 0 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
          }
          #expect(sink.bodyBytes > 0, "no body byte arrived before cancelling")
          let cancelled = ContinuousClock.now
          task.cancel()
          let result = await task.result
          let elapsed = ContinuousClock.now - cancelled
          // What is timed is the caller's answer, so up to when the test pool resumed this
          // task, which a loaded pool does seconds late (the server's log is no measure:
          // URLSession may close the connection later still, once the session's work queue
          // takes the cancel). Generous: the transfer itself would take over 8 minutes.
          #expect(elapsed < .seconds(30), "cancellation took \(elapsed)")
          switch result {
          case .success(let response):
            Issue.record("expected cancelled, got status \(response.head.status)")
          case .failure(let error):
            #expect((error as? TransferError)?.code == .cancelled, "\(error)")
          }
          let written = contents(of: path)
          #expect(written.count > 0)
          #expect(Int64(written.count) == sink.bodyBytes)
          #expect(written == TestContent.bytes(seed: 45, count: written.count))
        }
      }
    }
  }
}
