import Foundation
import HaulCore
import HaulCurl
import HaulTestSupport
import Testing

/// The headers `CurlTransport` adds of its own: one `User-Agent: haul/VERSION` and no `Accept`,
/// each replaced by the transfer's own when it gives one, never sent twice.
@Suite("CurlTransport: the headers haul adds", .timeLimit(.minutes(1)))
struct CurlRequestHeadersTests {
  @Test func a_request_names_haul_once_and_sends_no_accept_unless_the_transfer_sets_them()
    async throws
  {
    try await withFaultServer { server in
      try await withScratch { scratch in
        let transport = CurlTransport()
        let data = server.dataURL("headers", size: 100, seed: 4)
        for headers in [
          [], [HTTPField("user-agent", "mine/2"), HTTPField("Accept", "text/csv")],
        ] {
          let sink = try FileTestSink(path: scratch.file("out-\(headers.count)"))
          _ = try await transport.perform(.download(data, headers: headers), sink: sink)
        }
        await transport.shutdown()

        let records = server.requests
        #expect(records.count == 2)
        func values(_ name: String, _ index: Int) -> [String] {
          records[index].headers.filter { $0.hasName(name) }.map(\.value)
        }
        #expect(values("User-Agent", 0) == [HaulVersion.userAgent])
        #expect(values("Accept", 0) == [])
        #expect(values("User-Agent", 1) == ["mine/2"])
        #expect(values("Accept", 1) == ["text/csv"])
      }
    }
  }
}
