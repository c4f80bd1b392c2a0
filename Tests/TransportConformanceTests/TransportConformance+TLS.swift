import Foundation
import HaulCore
import HaulTestSupport
import Testing

extension TransportConformance {
  @Test(arguments: TransportKind.allCases)
  func downloads_over_https_trusting_an_extra_ca_file(_ kind: TransportKind) async throws {
    try kind.skip(
      on: .urlsession,
      because: "URLSessionTransport cannot trust extra CA certificates: URLSession on Linux "
        + "offers no way to add a CA file, so only the system store is trusted")
    try await NginxFixture.with(tls: true) { nginx in
      let sha = try nginx.createFile("secure.bin", size: 200_000, seed: 61)
      let options = TransportOptions(extraCACertificates: nginx.certificatePath)
      try await kind.withTransport(options) { transport in
        try await withScratch { scratch in
          let sink = try FileTestSink(path: scratch.file("secure.bin"))
          let response = try await transport.perform(
            .download(nginx.httpsURL("/secure.bin")), sink: sink)
          #expect(response.head.status == 200)
          #expect(sink.finish() == sha)
        }
      }
    }
  }

  @Test(arguments: TransportKind.allCases)
  func an_untrusted_certificate_is_a_tls_error(_ kind: TransportKind) async throws {
    try await NginxFixture.with(tls: true) { nginx in
      try nginx.createFile("secure.bin", size: 1000, seed: 62)
      try await kind.withTransport { transport in
        try await withScratch { scratch in
          let sink = try FileTestSink(path: scratch.file("secure.bin"))
          let error = await failure { () async throws(TransferError) in
            try await transport.perform(.download(nginx.httpsURL("/secure.bin")), sink: sink)
          }
          #expect(error?.code == .tls, "\(String(describing: error))")
          #expect(contents(of: scratch.file("secure.bin")).isEmpty)
        }
      }
    }
  }
}
