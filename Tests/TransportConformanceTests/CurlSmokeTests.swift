import Foundation
import HaulCore
import HaulCurl
import HaulTestSupport
import Testing

/// A quick check of `CurlTransport` against a real nginx (`NginxFixture`) started on
/// 127.0.0.1 for each test: download with digest, 404 discarded, PUT upload, request headers,
/// `--max-rate`, cancellation. The full conformance suite runs every case through both
/// transports; this one stays small.
@Suite("CurlTransport smoke")
struct CurlSmokeTests {
  @Test func download_streams_every_byte_to_the_sink() async throws {
    try await withSmokeServer { server, transport in
      let bytes = (0..<(3 * 1024 * 1024 + 17)).map { UInt8(truncatingIfNeeded: $0 ^ ($0 >> 11)) }
      try server.write(bytes, at: "blob")

      let sink = CollectingSink()
      let response = try await transport.perform(
        TransferRequest(url: server.url("/blob")), sink: sink)

      #expect(response.head.status == 200)
      #expect(response.bodyBytes == Int64(bytes.count))
      #expect(sink.digest() == SHA256.hex(of: bytes))
    }
  }

  @Test func error_status_is_returned_and_its_body_never_reaches_the_sink() async throws {
    try await withSmokeServer { server, transport in
      let sink = CollectingSink(acceptOnly: 200..<300)
      let response = try await transport.perform(
        TransferRequest(url: server.url("/missing")), sink: sink)

      #expect(response.head.status == 404)
      #expect(response.bodyBytes == 0)
      #expect(sink.bodyBytes == 0)
      #expect(sink.heads == 1)
    }
  }

  @Test func put_uploads_the_file_as_is() async throws {
    try await withSmokeServer { server, transport in
      let bytes = (0..<(700 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
      try server.write(bytes, at: "source")
      let source = URL(fileURLWithPath: server.root).appendingPathComponent("source")

      let sink = CollectingSink()
      let response = try await transport.perform(
        TransferRequest(
          url: server.url("/upload/copy"), method: "PUT",
          body: RequestBody(path: source.path, length: Int64(bytes.count))),
        sink: sink)

      #expect(response.head.status == 201)
      #expect(response.sentBytes == Int64(bytes.count))
      #expect(sink.lastSent == Int64(bytes.count))
      let stored = try Data(
        contentsOf: URL(fileURLWithPath: server.root).appendingPathComponent("upload/copy"))
      #expect(stored == Data(bytes))
    }
  }

  @Test func request_carries_range_and_hauls_headers_but_no_accept_encoding() async throws {
    try await withSmokeServer { server, transport in
      let sink = CollectingSink()
      _ = try await transport.perform(
        TransferRequest(
          url: server.url("/echo"), headers: [HTTPField("X-Test", "given")],
          range: ByteRange(start: 5, end: 9), ifRange: "\"tag\""),
        sink: sink)

      #expect(
        sink.text()
          == "ua=\(HaulVersion.userAgent) range=bytes=5-9 if-range=\"tag\" x-test=given accept-encoding= accept=\n"
      )
    }
  }

  @Test func max_rate_holds_a_download_below_the_cap() async throws {
    try await withSmokeServer(options: TransportOptions(maxBytesPerSecond: 256 * 1024)) {
      server, transport in
      let bytes = (0..<(1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 13) }
      try server.write(bytes, at: "capped")

      let sink = CollectingSink()
      let clock = ContinuousClock()
      let started = clock.now
      let response = try await transport.perform(
        TransferRequest(url: server.url("/capped")), sink: sink)

      // 1 MiB at 256 KiB/s with a 64 KiB burst needs 3.75 s; allow much slack below that.
      #expect(clock.now - started > .seconds(2))
      #expect(response.bodyBytes == Int64(bytes.count))
      #expect(sink.digest() == SHA256.hex(of: bytes))
    }
  }

  @Test func cancelling_the_task_stops_a_slow_transfer_promptly() async throws {
    try await withSmokeServer { server, transport in
      // Served at 1 MB/s (`/slow/`), so 32 MiB are far from done when the cancel comes, even
      // when a loaded test pool wakes this task late from its sleep.
      let size = 32 * 1024 * 1024
      try server.write([UInt8](repeating: 0, count: size), at: "slow/big")
      let sink = CollectingSink()
      let task = Task { () async -> Result<TransferResponse, TransferError> in
        do throws(TransferError) {
          return .success(
            try await transport.perform(TransferRequest(url: server.url("/slow/big")), sink: sink))
        } catch {
          return .failure(error)
        }
      }
      try await Task.sleep(for: .milliseconds(500))
      task.cancel()

      let result = await task.value
      #expect(throws: TransferError(.cancelled, "the transfer was cancelled")) { try result.get() }
      #expect(sink.bodyBytes < size)
    }
  }
}

/// Runs `body` with a fresh nginx and transport, and always shuts both down.
private func withSmokeServer(
  options: TransportOptions = TransportOptions(),
  _ body: (NginxFixture, CurlTransport) async throws -> Void
) async throws {
  try await NginxFixture.with { server in
    let transport = CurlTransport(options: options)
    do {
      try await body(server, transport)
    } catch {
      await transport.shutdown()
      throw error
    }
    await transport.shutdown()
  }
}

extension NginxFixture {
  /// Writes `bytes` as the file at `relativePath` under the served root.
  fileprivate func write(_ bytes: [UInt8], at relativePath: String) throws {
    let url = URL(fileURLWithPath: root).appendingPathComponent(relativePath)
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(bytes).write(to: url)
  }
}

/// A sink that hashes the body and keeps a small prefix of it for inspection.
///
/// The transport calls it from its loop thread one call at a time; the test reads it only
/// after `perform` returned, which orders those calls before the reads.
private final class CollectingSink: ResponseSink, @unchecked Sendable {
  private let hasher = SHA256()
  private let accepted: Range<Int>
  private var prefix: [UInt8] = []
  private(set) var heads = 0
  private(set) var bodyBytes = 0
  private(set) var lastSent: Int64 = 0

  init(acceptOnly accepted: Range<Int> = 100..<600) {
    self.accepted = accepted
  }

  func receive(head: ResponseHead) throws(TransferError) -> Bool {
    heads += 1
    return accepted.contains(head.status)
  }

  func receive(body: UnsafeRawBufferPointer) throws(TransferError) {
    hasher.update(body)
    bodyBytes += body.count
    if prefix.count < 4096 { prefix += body.prefix(4096 - prefix.count) }
  }

  func sent(totalBytes: Int64) { lastSent = totalBytes }

  func digest() -> String { hasher.finalize() }
  func text() -> String { String(decoding: prefix, as: UTF8.self) }
}
