import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// A response whose framing cannot be trusted is `protocol` through every transport, each
/// cause with the same code (RFC 9110 §8.6: such a message is invalid; RFC 9112 §6.3: one
/// with both `Content-Length` and `Transfer-Encoding` ought to be handled as an error).
enum MalformedFraming: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case differingValuesInOneField
  case differingFields
  case nonNumericLength
  case negativeLength
  case twentyDigitLength
  case fourDigitStatus
  case http09Answer
  case lengthBesideChunked
  case shortLengthBesideChunked

  var testDescription: String { rawValue }

  /// The fault server's options that produce this answer to a 10-byte body.
  var options: [String: String] {
    switch self {
    case .differingValuesInOneField: ["lengths": "10, 12"]
    case .differingFields: ["lengths": "10;12"]
    case .nonNumericLength: ["lengths": "ten"]
    case .negativeLength: ["lengths": "-10"]
    case .twentyDigitLength: ["lengths": "99999999999999999999"]
    case .fourDigitStatus: ["statusLine": "HTTP/1.1 2000 OK"]
    case .http09Answer: ["http09": "1"]
    case .lengthBesideChunked: ["chunked": "1", "lengths": "10"]
    case .shortLengthBesideChunked: ["chunked": "1", "lengths": "4"]
    }
  }
}

extension TransportConformance {
  @Test(arguments: TransportKind.allCases, MalformedFraming.allCases)
  func a_malformed_content_length_status_or_http_version_is_a_protocol_error(
    _ kind: TransportKind, _ framing: MalformedFraming
  )
    async throws
  {
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let sink = try FileTestSink(path: scratch.file("framing.bin"))
          let url = server.dataURL(
            "framing-\(framing.rawValue)", size: 10, seed: 93, options: framing.options)
          let error = await failure { () async throws(TransferError) in
            try await transport.perform(.download(url), sink: sink)
          }
          #expect(error?.code == .protocol, "\(String(describing: error))")
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases, ["10, 10", "10;10"])
  func a_content_length_repeated_with_the_same_value_is_accepted(
    _ kind: TransportKind, _ lengths: String
  )
    async throws
  {
    try await withFaultServer { server in
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let path = scratch.file("same.bin")
          let sink = try FileTestSink(path: path)
          let url = server.dataURL("same", size: 10, seed: 94, options: ["lengths": lengths])
          let response = try await transport.perform(.download(url), sink: sink)
          #expect(response.head.status == 200)
          #expect(contents(of: path) == TestContent.bytes(seed: 94, count: 10))
        }
      }
    }
  }

  /// Trailer fields after a chunked body: libcurl reads and drops them. The curl transport
  /// only: through URLSession, corelibs 6.3 stops the process at the end of such a transfer
  /// (its trailer lines start a head that never completes); the URLSession transport cancels
  /// a response that announces trailers when its head arrives, a race a small body can win,
  /// so that case is tested where a crash costs only haul's process (CLITests, FramingTests).
  @Test func a_chunked_body_with_trailer_fields_is_read_exactly() async throws {
    try await withFaultServer { server in
      try await TransportKind.curl.withTransport { transport in
        try await withScratch { scratch in
          for (index, trailers) in ["1", "unannounced"].enumerated() {
            let sink = try FileTestSink(path: scratch.file("trailers\(index).bin"))
            let url = server.dataURL(
              "trailers\(index)", size: 200_000, seed: 95,
              options: ["chunked": "1", "trailers": trailers])
            let response = try await transport.perform(.download(url), sink: sink)
            #expect(response.head.status == 200)
            #expect(sink.finish() == TestContent.sha256(seed: 95, count: 200_000))
          }
        }
      }
    }
  }
}
