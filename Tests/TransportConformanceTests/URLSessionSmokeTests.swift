import Foundation
import HaulCore
import HaulTestSupport
import Testing

@testable import HaulURLSession

/// A quick check of `URLSessionTransport` against real nginx and the fault server; the
/// shared conformance suite covers both transports in depth.
@Suite struct URLSessionSmokeTests {
  /// Runs `body` with a fresh transport and shuts it down afterwards.
  private func withTransport<T>(
    _ body: (URLSessionTransport) async throws -> T
  ) async throws -> T {
    let transport = URLSessionTransport()
    do {
      let result = try await body(transport)
      await transport.shutdown()
      return result
    } catch {
      await transport.shutdown()
      throw error
    }
  }

  @Test func downloads_exact_bytes_and_ranges_from_nginx() async throws {
    try await NginxFixture.with { nginx in
      let size: Int64 = 24 << 20
      let sha = try nginx.createFile("big.bin", size: size, seed: 11)
      let directory = try TemporaryDirectory()
      defer { directory.remove() }
      try await withTransport { transport in
        let whole = try FileTestSink(path: directory.file("whole"))
        let response = try await transport.perform(
          TransferRequest(url: nginx.url("/big.bin")), sink: whole)
        #expect(response.head.status == 200 && response.bodyBytes == size)
        #expect(whole.finish() == sha)

        // The sink keeps the file's first 1000 bytes and appends the 206 body after them.
        let part = try FileTestSink(path: directory.file("whole"))
        let ranged = try await transport.perform(
          TransferRequest(url: nginx.url("/big.bin"), range: ByteRange(start: 1000, end: 1999)),
          sink: part)
        #expect(ranged.head.status == 206 && ranged.bodyBytes == 1000)
        #expect(ranged.head.value(for: "Content-Range") == "bytes 1000-1999/\(size)")
        #expect(part.finish() == TestContent.sha256(seed: 11, count: 2000))
      }
    }
  }

  @Test func returns_404_and_302_without_writing_their_bodies() async throws {
    try await NginxFixture.with(tls: true) { nginx in
      let directory = try TemporaryDirectory()
      defer { directory.remove() }
      try await withTransport { transport in
        let missing = try FileTestSink(path: directory.file("missing"))
        let notFound = try await transport.perform(
          TransferRequest(url: nginx.url("/nope.bin")), sink: missing)
        #expect(notFound.head.status == 404 && notFound.bodyBytes == 0)

        let moved = try FileTestSink(path: directory.file("moved"))
        let redirect = try await transport.perform(
          TransferRequest(url: nginx.url("/to-https/x.bin")), sink: moved)
        #expect(redirect.head.status == 302 && redirect.bodyBytes == 0)
        #expect(redirect.head.value(for: "Location") == nginx.httpsURL("/x.bin").absoluteString)
        #expect(missing.finish() == SHA256.hex(of: []) && moved.finish() == SHA256.hex(of: []))
      }
    }
  }

  @Test func uploads_a_file_with_put() async throws {
    try await NginxFixture.with { nginx in
      let directory = try TemporaryDirectory()
      defer { directory.remove() }
      let source = directory.file("source.bin")
      let sha = try TestContent.writeFile(at: source, seed: 5, count: 3_000_000)
      try await withTransport { transport in
        let sink = try FileTestSink(path: directory.file("reply"))
        let response = try await transport.perform(
          TransferRequest(
            url: nginx.url("/upload/u.bin"), method: "PUT",
            body: RequestBody(path: source, length: 3_000_000)),
          sink: sink)
        #expect(response.head.status == 201 && response.sentBytes == 3_000_000)
        #expect(sink.sentBytes == 3_000_000)
      }
      let stored = try #require(nginx.fileDigest("upload/u.bin"))
      #expect(stored.length == 3_000_000 && stored.sha256 == sha)
    }
  }

  @Test func asks_for_identity_encoding_and_fails_short_bodies_and_stalls() async throws {
    let server = try FaultServer.started()
    defer { server.stop() }
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try await withTransport { transport in
      let echo = try FileTestSink(path: directory.file("echo"))
      _ = try await transport.perform(TransferRequest(url: server.url("/echo")), sink: echo)
      #expect(server.requests.last?.value(for: "Accept-Encoding") == "identity")

      let short = try FileTestSink(path: directory.file("short"))
      let lie = server.dataURL("short", size: 100_000, seed: 1, options: ["lie": "500"])
      let shortError = await #expect(throws: TransferError.self) {
        try await transport.perform(TransferRequest(url: lie), sink: short)
      }
      #expect(shortError?.code == .protocol)

      let stalled = try FileTestSink(path: directory.file("stalled"))
      let stall = server.dataURL(
        "stall", size: 100_000, seed: 2, options: ["stall": "1000", "stallSeconds": "10"])
      let stallError = await #expect(throws: TransferError.self) {
        try await transport.perform(TransferRequest(url: stall, stallTimeout: 1), sink: stalled)
      }
      #expect(stallError?.code == .timeout)

      let headed = try FileTestSink(path: directory.file("headed"))
      let big = server.dataURL("big", size: 10, seed: 3, options: ["bigHeaders": "280000"])
      let headError = await #expect(throws: TransferError.self) {
        try await transport.perform(TransferRequest(url: big), sink: headed)
      }
      #expect(headError?.code == .protocol)
    }
  }

  @Test func a_request_waiting_for_a_connection_slot_does_not_time_out() async throws {
    let server = try FaultServer.started()
    defer { server.stop() }
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let transport = URLSessionTransport(options: TransportOptions(maxConnectionsPerHost: 1))
    // Each download takes about 6 s; the second waits for the first's connection longer
    // than its 3 s stall timeout, which a loaded machine's pauses in the drip stay under.
    let codes = await withTaskGroup(of: String.self) { group in
      for index in 0..<2 {
        group.addTask {
          let url = server.dataURL(
            "slot\(index)", size: 300_000, seed: UInt64(index), options: ["drip": "50000"])
          do {
            let sink = try FileTestSink(path: directory.file("slot\(index)"))
            let response = try await transport.perform(
              TransferRequest(url: url, stallTimeout: 3), sink: sink)
            return "\(response.head.status)"
          } catch {
            return "\(error)"
          }
        }
      }
      return await group.reduce(into: []) { $0.append($1) }
    }
    await transport.shutdown()
    #expect(codes == ["200", "200"])
    #expect(server.maxInFlight(pathPrefix: "/data/slot") == 1)
  }

  @Test func sorts_libcurl_messages_that_corelibs_reports_as_unknown() {
    let cases: [(String, TransferError.Code)] = [
      ("SSL certificate problem: self-signed certificate", .tls),
      ("Could not resolve host: ssl.example.com", .connection),
      ("Failed to connect to tls.example port 443 after 3 ms: No route to host", .connection),
      ("transfer closed with 500 bytes remaining to read", .protocol),
      ("Too large response headers: 307755 > 307200", .protocol),
      ("Failed writing header", .protocol),
      ("Resolving timed out after 5000 milliseconds", .timeout),
      ("Send failure: Broken pipe", .connection),
    ]
    for (message, code) in cases {
      #expect(TransferError.curlCategory(of: message) == code, "\(message)")
    }
  }

  @Test func cancelling_the_caller_stops_the_download_promptly() async throws {
    let server = try FaultServer.started()
    defer { server.stop() }
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try await withTransport { transport in
      let sink = try FileTestSink(path: directory.file("slow"))
      let slow = server.dataURL("slow", size: 10_000_000, seed: 4, options: ["drip": "100000"])
      let work = Task { () throws(TransferError) -> TransferResponse in
        try await transport.perform(TransferRequest(url: slow), sink: sink)
      }
      // Cancelled once the body flows (or after 10 s, on a machine too loaded for that).
      let deadline = ContinuousClock.now + .seconds(10)
      while sink.bodyBytes == 0 && ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(10))
      }
      let cancelled = ContinuousClock.now
      work.cancel()
      let result = await work.result
      let elapsed = ContinuousClock.now - cancelled
      #expect(throws: TransferError(.cancelled, "cancelled")) { try result.get() }
      // The caller's answer, timed up to when the test pool resumed this task (seconds late
      // on a loaded pool; the connection may close later still, once the session's work queue
      // takes the cancel). Generous: the whole transfer would take 100 s.
      #expect(elapsed < .seconds(30), "cancellation took \(elapsed)")
    }
  }
}
