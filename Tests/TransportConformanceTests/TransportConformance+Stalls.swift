import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// `--timeout` measures silence: a slow body goes on, a silent one fails at about the
/// timeout after its last byte.
extension TransportConformance {
  @Test(arguments: TransportKind.allCases)
  func a_body_dripping_a_byte_a_second_under_a_2_s_stall_timeout_is_slow_not_stalled(
    _ kind: TransportKind
  ) async throws {
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let path = scratch.file("drip.bin")
          let sink = try FileTestSink(path: path)
          // Five bytes a second apart: longer than the timeout in all, never silent for it.
          let url = server.dataURL("drip", size: 5, seed: 91, options: ["drip": "1"])
          let response = try await transport.perform(
            .download(url, stallTimeout: 2), sink: sink)
          #expect(response.head.status == 200)
          #expect(contents(of: path) == TestContent.bytes(seed: 91, count: 5))
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func a_stall_after_a_short_drip_fails_at_about_the_stall_timeout_after_the_last_byte(
    _ kind: TransportKind
  ) async throws {
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let path = scratch.file("dripstall.bin")
          let sink = try FileTestSink(path: path)
          // Bytes at about 0, 0.5 and 1 s, then 30 s of silence.
          let url = server.dataURL(
            "dripstall", size: 100, seed: 92,
            options: ["drip": "2", "stall": "3", "stallSeconds": "30"])
          let error = await failure { () async throws(TransferError) in
            try await transport.perform(.download(url, stallTimeout: 2), sink: sink)
          }
          #expect(error?.code == .timeout, "\(String(describing: error))")
          #expect(contents(of: path) == TestContent.bytes(seed: 92, count: 3))
          // Timed by the server, from its last byte to the client's hang-up: the test
          // pool's delays are not the transport's. A timeout counted from the start would
          // hang up 1 s after the last byte; none would keep the line for 30 s.
          let record = server.endedRequests(pathPrefix: "/data/dripstall").first
          let silence = try #require(record?.silenceBeforeEnd, "the server saw no hang-up")
          #expect(silence > 1.5, "hung up \(silence) s after the last byte")
          #expect(silence < 10, "a 2 s stall timeout hung up \(silence) s after the last byte")
        }
      }
    }
  }
}
