import Foundation
import HaulCore
import HaulCurl
import HaulTestSupport
import Testing

/// `CurlTransport` keeps an easy handle's shared options after a plain GET instead of
/// resetting it: nothing of one exchange (headers, method, body, timeouts) may reach the next
/// exchange that runs on the same handle.
@Suite("CurlTransport: a reused handle carries nothing over", .timeLimit(.minutes(1)))
struct CurlHandleReuseTests {
  @Test func each_exchange_sends_only_its_own_method_and_headers() async throws {
    try await withFaultServer { server in
      try await withScratch { scratch in
        // One connection and one handle: every exchange runs on the same easy handle.
        let transport = CurlTransport(
          options: TransportOptions(maxConnections: 1, maxConnectionsPerHost: 1))
        let source = scratch.path + "/source"
        try write(Array(repeating: 7, count: 1000), to: source)
        let data = server.dataURL("reuse", size: 2000, seed: 3)
        func get(_ headers: [HTTPField] = [], stallTimeout: Double = 10) async throws -> Int {
          let sink = try FileTestSink(path: scratch.path + "/out-\(UUID().uuidString)")
          return try await transport.perform(
            .download(data, headers: headers, stallTimeout: stallTimeout), sink: sink
          ).head.status
        }

        #expect(try await get([HTTPField("X-First", "1")]) == 200)
        #expect(try await get(stallTimeout: .infinity) == 200)
        let put = try await transport.perform(
          TransferRequest(
            url: server.url("/upload/reuse"), method: "PUT",
            headers: [HTTPField("X-Put", "1")], body: RequestBody(path: source, length: 1000)),
          sink: try FileTestSink(path: scratch.path + "/put-answer"))
        #expect((200..<300).contains(put.head.status))
        #expect(try await get() == 200)
        // The first GET's header list is the loop's shared one: a later GET with the same
        // headers sends them again, one with other headers sends only its own.
        #expect(try await get([HTTPField("X-First", "1")]) == 200)
        #expect(try await get([HTTPField("X-Second", "2")]) == 200)
        await transport.shutdown()

        let records = server.requests
        #expect(records.map(\.method) == ["GET", "GET", "PUT", "GET", "GET", "GET"])
        #expect(records[0].headers.value(for: "X-First") == "1")
        #expect(records[4].headers.value(for: "X-First") == "1")
        #expect(records[5].headers.value(for: "X-Second") == "2")
        #expect(records[5].headers.value(for: "X-First") == nil)
        for index in [1, 3] {
          #expect(records[index].headers.value(for: "X-First") == nil)
          #expect(records[index].headers.value(for: "X-Put") == nil)
          #expect(records[index].headers.value(for: "Content-Length") == nil)
        }
        #expect(records[2].headers.value(for: "X-First") == nil)
      }
    }
  }
}
