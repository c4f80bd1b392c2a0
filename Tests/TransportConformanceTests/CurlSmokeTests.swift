import Foundation
import HaulCore
import HaulCurl
import Testing

/// A quick check of `CurlTransport` against a real nginx started on 127.0.0.1 for each test:
/// download with digest, 404 discarded, PUT upload, request headers, `--max-rate`,
/// cancellation. The full
/// conformance suite runs every case through both transports; this one stays small.
@Suite("CurlTransport smoke")
struct CurlSmokeTests {
  @Test func download_streams_every_byte_to_the_sink() async throws {
    try await withSmokeServer { server, transport in
      let bytes = (0..<(3 * 1024 * 1024 + 17)).map { UInt8(truncatingIfNeeded: $0 ^ ($0 >> 11)) }
      try Data(bytes).write(to: server.root.appendingPathComponent("blob"))

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
      let source = server.root.appendingPathComponent("source")
      try Data(bytes).write(to: source)

      let sink = CollectingSink()
      let response = try await transport.perform(
        TransferRequest(
          url: server.url("/up/copy"), method: "PUT",
          body: RequestBody(path: source.path, length: Int64(bytes.count))),
        sink: sink)

      #expect(response.head.status == 201)
      #expect(response.sentBytes == Int64(bytes.count))
      #expect(sink.lastSent == Int64(bytes.count))
      let stored = try Data(contentsOf: server.root.appendingPathComponent("up/copy"))
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
          == "ua=haul/0.1 range=bytes=5-9 if-range=\"tag\" x-test=given accept-encoding= accept=\n"
      )
    }
  }

  @Test func max_rate_holds_a_download_below_the_cap() async throws {
    try await withSmokeServer(options: TransportOptions(maxBytesPerSecond: 256 * 1024)) {
      server, transport in
      let bytes = (0..<(1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 13) }
      try Data(bytes).write(to: server.root.appendingPathComponent("capped"))

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
      try Data(count: 4 * 1024 * 1024).write(to: server.root.appendingPathComponent("big"))
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
      #expect(sink.bodyBytes < 4 * 1024 * 1024)
    }
  }
}

/// Runs `body` with a fresh nginx and transport, and always shuts both down.
private func withSmokeServer(
  options: TransportOptions = TransportOptions(),
  _ body: (SmokeServer, CurlTransport) async throws -> Void
) async throws {
  let server = try SmokeServer()
  let transport = CurlTransport(options: options)
  do {
    try await body(server, transport)
  } catch {
    await transport.shutdown()
    server.stop()
    throw error
  }
  await transport.shutdown()
  server.stop()
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

/// An nginx serving a temporary folder on a free 127.0.0.1 port, with a PUT folder (`/up/`),
/// a rate-limited view (`/slow/`) and `/echo`, which answers with the request's headers.
private struct SmokeServer {
  let root: URL
  let port: Int
  private let process: Process

  init() throws {
    root = FileManager.default.temporaryDirectory
      .appendingPathComponent("haul-curl-smoke-\(UUID().uuidString)")
    try FileManager.default.createDirectory(
      at: root.appendingPathComponent("up"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(
      at: root.appendingPathComponent("tmp"), withIntermediateDirectories: true)
    port = try Self.freePort()
    let config = """
      daemon off;
      \(geteuid() == 0 ? "user root;" : "")
      worker_processes 1;
      pid \(root.path)/nginx.pid;
      error_log \(root.path)/error.log;
      events { worker_connections 64; }
      http {
        access_log off;
        client_body_temp_path \(root.path)/tmp;
        proxy_temp_path \(root.path)/tmp;
        fastcgi_temp_path \(root.path)/tmp;
        uwsgi_temp_path \(root.path)/tmp;
        scgi_temp_path \(root.path)/tmp;
        server {
          listen 127.0.0.1:\(port);
          root \(root.path);
          client_max_body_size 0;
          location /up/ { dav_methods PUT; }
          location /slow/ { alias \(root.path)/; limit_rate 8k; }
          location /echo {
            return 200 "ua=$http_user_agent range=$http_range if-range=$http_if_range x-test=$http_x_test accept-encoding=$http_accept_encoding accept=$http_accept\\n";
          }
        }
      }
      """
    let configPath = root.appendingPathComponent("nginx.conf")
    try config.write(to: configPath, atomically: true, encoding: .utf8)
    process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
    process.arguments = ["-c", configPath.path, "-p", root.path]
    try process.run()
    try Self.waitUntilListening(port: port, process: process)
  }

  func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

  func stop() {
    process.terminate()
    process.waitUntilExit()
    try? FileManager.default.removeItem(at: root)
  }

  /// A port the kernel just handed out for 127.0.0.1, free again once this returns.
  private static func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = loopback(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
      }
    }
    guard bound else { throw SmokeServerError.noFreePort }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  private static func waitUntilListening(port: Int, process: Process) throws {
    for _ in 0..<200 {
      guard process.isRunning else { throw SmokeServerError.nginxExited }
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      var address = loopback(port: port)
      let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
      }
      close(fd)
      if connected { return }
      usleep(25_000)
    }
    throw SmokeServerError.nginxExited
  }

  private static func loopback(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
  }
}

private enum SmokeServerError: Error {
  case noFreePort
  case nginxExited
}
