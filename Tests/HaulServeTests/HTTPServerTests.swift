import Foundation
import Synchronization
import Testing

@testable import HaulServe

#if canImport(Glibc)
  import Glibc
#endif

/// The daemon's HTTP server over real sockets: curl on the control socket and on loopback
/// TCP, and raw sockets where a test must send or withhold bytes that curl would not.
@Suite("HTTP server: libmicrohttpd on a Unix socket and loopback TCP")
struct HTTPServerTests {
  // MARK: Requests

  @Test func answers_on_the_unix_socket_with_the_request_as_parsed() throws {
    let scratch = try ScratchFolder()
    defer { scratch.remove() }
    let seen = Recorder<HTTPRequest>()
    let server = HTTPServer(maxBodySize: 1024) { request in
      seen.append(request)
      return .json(status: 201, Array(#"{"ok":true}"#.utf8))
    }
    defer { server.stop() }
    let socket = scratch.path("control.sock")
    try server.listen(unixSocket: socket)

    // When curl posts a body with a query, an escaped path and a repeated header.
    let answer = try Curl.run([
      "--unix-socket", socket, "-H", "X-Tag: one", "-H", "x-tag: two",
      "--data-binary", "hello", "http://localhost/v1/jobs/a%20b?state=ok&name=x%2By&flag",
    ])

    // Then the handler saw what libmicrohttpd parsed, and the client got the answer.
    #expect(answer.status == 201)
    #expect(answer.body == #"{"ok":true}"#)
    #expect(answer.headers["content-type"] == "application/json")
    let request = try #require(seen.values.first)
    #expect(request.method == "POST")
    #expect(request.path == "/v1/jobs/a b")
    #expect(request.query == ["state": "ok", "name": "x+y", "flag": ""])
    #expect(request.headers["x-tag"] == "one, two")
    #expect(request.header("Host") == "localhost")
    #expect(request.body == Array("hello".utf8))
    #expect(request.listener == .unix)
  }

  @Test func makes_the_socket_file_private_and_removes_it_on_stop() throws {
    let scratch = try ScratchFolder()
    defer { scratch.remove() }
    let server = HTTPServer(maxBodySize: 0) { _ in HTTPResponse(status: 204) }
    let socket = scratch.path("control.sock")
    try server.listen(unixSocket: socket)

    var status = stat()
    #expect(lstat(socket, &status) == 0)
    #expect(status.st_mode & S_IFMT == S_IFSOCK)
    #expect(status.st_mode & 0o777 == 0o600)

    server.stop()
    #expect(lstat(socket, &status) != 0)
  }

  @Test func replaces_a_stale_socket_but_refuses_a_live_server_or_another_file() throws {
    let scratch = try ScratchFolder()
    defer { scratch.remove() }
    // Given a socket file left by a process that died (bound, then closed).
    let socket = scratch.path("control.sock")
    try RawSocket.leaveStaleUnixSocket(at: socket)

    // Then a server listens there, and answers.
    let first = HTTPServer(maxBodySize: 0) { _ in HTTPResponse(status: 204) }
    defer { first.stop() }
    try first.listen(unixSocket: socket)
    #expect(try Curl.run(["--unix-socket", socket, "http://localhost/"]).status == 204)

    // But a second server is refused while the first answers, and the file stays.
    let second = HTTPServer(maxBodySize: 0) { _ in HTTPResponse(status: 500) }
    defer { second.stop() }
    do {
      try second.listen(unixSocket: socket)
      Issue.record("a second server listened on a live socket")
    } catch {
      #expect(error.code == .addressInUse)
    }
    #expect(try Curl.run(["--unix-socket", socket, "http://localhost/"]).status == 204)

    // And a path that is not a socket is never removed.
    let file = scratch.path("notes.txt")
    try Data("keep".utf8).write(to: URL(fileURLWithPath: file))
    do {
      try second.listen(unixSocket: file)
      Issue.record("listened over a regular file")
    } catch {
      #expect(error.code == .addressInUse)
    }
    #expect(FileManager.default.contents(atPath: file) == Data("keep".utf8))
  }

  @Test func listens_on_tcp_port_zero_over_ipv4_and_ipv6_and_names_the_listener() throws {
    let seen = Recorder<HTTPRequest>()
    let server = HTTPServer(maxBodySize: 0) { request in
      seen.append(request)
      return HTTPResponse(status: 200, body: .bytes(Array("hi".utf8)))
    }
    defer { server.stop() }

    let port = try server.listen(host: "127.0.0.1", port: 0)
    #expect(port > 0)
    let answer = try Curl.run(["http://127.0.0.1:\(port)/x"])
    #expect(answer.status == 200)
    #expect(answer.body == "hi")
    #expect(seen.values.last?.listener == .tcp(host: "127.0.0.1", port: port))

    if RawSocket.loopbackIPv6Works() {
      let port6 = try server.listen(host: "::1", port: 0)
      #expect(try Curl.run(["-g", "http://[::1]:\(port6)/y"]).status == 200)
      #expect(seen.values.last?.listener == .tcp(host: "::1", port: port6))
    }

    for (host, port) in [("localhost", 0), ("127.0.0.1", 70_000)] {
      do {
        _ = try server.listen(host: host, port: port)
        Issue.record("listened on \(host) port \(port)")
      } catch {
        #expect(error.code == .invalidAddress)
      }
    }
  }

  // MARK: Bodies over the limit

  @Test func refuses_a_declared_body_over_the_limit_before_reading_it() throws {
    let calls = Recorder<String>()
    let server = HTTPServer(maxBodySize: 64 * 1024) { request in
      calls.append(request.path)
      return HTTPResponse(status: 200)
    }
    defer { server.stop() }
    let port = try server.listen(host: "127.0.0.1", port: 0)

    // When a client declares 100 MB and sends the first 64 KiB of it.
    let client = try RawSocket(tcpPort: port)
    try client.send(
      "POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n")
    try client.send([UInt8](repeating: 0x61, count: 64 * 1024))

    // Then the answer is a 413 in the API's format, and the connection closes, though
    // almost all of the body was never sent.
    let answer = client.receive(timeout: .seconds(60)) { $0.containsSubsequence("too_large") }
    let text = String(decoding: answer.bytes, as: UTF8.self)
    #expect(text.hasPrefix("HTTP/1.1 413"))
    #expect(text.contains(#""code":"too_large""#))
    #expect(client.waitForClose(timeout: .seconds(60)))
    #expect(calls.values.isEmpty)
  }

  @Test func refuses_a_chunked_body_over_the_limit_before_reading_it() throws {
    let calls = Recorder<String>()
    let limit = 64 * 1024
    let server = HTTPServer(maxBodySize: limit) { request in
      calls.append(request.path)
      return HTTPResponse(status: 200)
    }
    defer { server.stop() }
    let port = try server.listen(host: "127.0.0.1", port: 0)

    // When a client sends chunks of 8 KiB without a Content-Length, watching for an answer
    // for a few milliseconds between chunks (so that what it sent is about what the server
    // read), for up to 100 MB.
    let client = try RawSocket(tcpPort: port)
    try client.send(
      "POST /v1/jobs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
    let chunk = Array("2000\r\n".utf8) + [UInt8](repeating: 0x62, count: 8192) + Array("\r\n".utf8)
    var sent = 0
    var answer: [UInt8] = []
    while sent < 100_000_000 {
      guard (try? client.send(chunk)) != nil else { break }
      sent += 8192
      answer += client.receive(timeout: .milliseconds(5)) { _ in true }.bytes
      if !answer.isEmpty { break }
    }
    answer += client.receive(timeout: .seconds(60)) { $0.containsSubsequence("too_large") }.bytes

    // Then a 413 came once the limit was passed, long before the body's end.
    #expect(String(decoding: answer, as: UTF8.self).hasPrefix("HTTP/1.1 413"))
    #expect(sent < limit + 1024 * 1024)
    #expect(client.waitForClose(timeout: .seconds(60)))
    #expect(calls.values.isEmpty)
  }

  @Test func reads_a_chunked_body_under_the_limit_whole() throws {
    let bodies = Recorder<[UInt8]>()
    let server = HTTPServer(maxBodySize: 300_000) { request in
      bodies.append(request.body)
      return HTTPResponse(status: 204)
    }
    defer { server.stop() }
    let port = try server.listen(host: "127.0.0.1", port: 0)
    let scratch = try ScratchFolder()
    defer { scratch.remove() }
    let payload = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
    try Data(payload).write(to: URL(fileURLWithPath: scratch.path("body")))

    let answer = try Curl.run([
      "-H", "Transfer-Encoding: chunked", "--data-binary", "@" + scratch.path("body"),
      "http://127.0.0.1:\(port)/v1/jobs",
    ])

    #expect(answer.status == 204)
    #expect(bodies.values == [payload])
  }

  // MARK: Idle connections

  @Test func answers_promptly_beside_200_silent_and_trickling_connections() throws {
    let server = HTTPServer(maxBodySize: 0) { _ in HTTPResponse(status: 204) }
    defer { server.stop() }
    let port = try server.listen(host: "127.0.0.1", port: 0)

    // Given 100 connections that send nothing and 100 that send a header a byte at a time.
    let silent = try (0..<100).map { _ in try RawSocket(tcpPort: port) }
    let trickling = try (0..<100).map { _ in try RawSocket(tcpPort: port) }
    let header = Array("GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ".utf8)
    let trickle = Thread {
      for byte in header {
        for client in trickling { _ = try? client.send([byte]) }
        Thread.sleep(forTimeInterval: 0.02)
      }
    }
    trickle.start()

    // Then another client is answered, again and again, well before the 30 s after which the
    // slow ones would be dropped (a server they held up would answer only then).
    for _ in 0..<5 {
      #expect(try Curl.run(["--max-time", "20", "http://127.0.0.1:\(port)/"]).status == 204)
    }
    withExtendedLifetime(silent) {}
  }

  @Test func closes_a_connection_that_stays_idle_after_the_timeout() throws {
    let server = HTTPServer(maxBodySize: 0, idleTimeout: .seconds(1)) { _ in
      HTTPResponse(status: 204)
    }
    defer { server.stop() }
    let port = try server.listen(host: "127.0.0.1", port: 0)

    // Given a connection that sends half a request, and one answered and then left open.
    let silent = try RawSocket(tcpPort: port)
    try silent.send("GET / HT")
    let kept = try RawSocket(tcpPort: port)
    try kept.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    #expect(
      kept.receive(timeout: .seconds(60)) { $0.containsSubsequence("\r\n\r\n") }.closed == false)

    // Then both are closed by the server (the bound is for a failure only).
    #expect(silent.waitForClose(timeout: .seconds(60)))
    #expect(kept.waitForClose(timeout: .seconds(60)))
  }

  // MARK: Streams

  @Test func sends_stream_chunks_as_they_are_written_and_ends_on_close() throws {
    let streams = Recorder<HTTPStream>()
    let server = HTTPServer(maxBodySize: 0) { _ in
      let stream = HTTPStream()
      streams.append(stream)
      return .eventStream(stream)
    }
    defer { server.stop() }
    let port = try server.listen(host: "127.0.0.1", port: 0)
    let client = try RawSocket(tcpPort: port)
    try client.send("GET /v1/events HTTP/1.1\r\nHost: x\r\n\r\n")
    let stream = try #require(streams.waitForFirst(timeout: .seconds(60)))
    let reasons = Recorder<HTTPStream.EndReason>()
    stream.onClose { reasons.append($0) }

    // When events are written one at a time, each only once the last has arrived.
    var received: [UInt8] = []
    for index in 0..<5 {
      #expect(stream.write("data: \(index)\n\n"))
      received +=
        client.receive(timeout: .seconds(60)) {
          (received + $0).containsSubsequence("data: \(index)\n\n")
        }.bytes
      #expect(received.containsSubsequence("data: \(index)\n\n"))
    }
    let head = String(decoding: received, as: UTF8.self).lowercased()
    #expect(head.hasPrefix("http/1.1 200"))
    #expect(head.contains("transfer-encoding: chunked"))
    #expect(head.contains("content-type: text/event-stream"))

    // Then close ends the body with the last chunk, and the connection stays open.
    stream.close()
    #expect(!stream.write("data: late\n\n"))
    received +=
      client.receive(timeout: .seconds(60)) {
        (received + $0).containsSubsequence("\r\n0\r\n\r\n")
      }.bytes
    #expect(received.containsSubsequence("\r\n0\r\n\r\n"))
    #expect(reasons.waitForFirst(timeout: .seconds(60)) == .finished)
    try client.send("GET /v1/events HTTP/1.1\r\nHost: x\r\n\r\n")
    #expect(streams.wait(forCount: 2, timeout: .seconds(60)))
  }

  @Test func ends_a_stream_whose_client_hangs_up_while_nothing_is_written() throws {
    let streams = Recorder<HTTPStream>()
    let server = HTTPServer(maxBodySize: 0) { _ in
      let stream = HTTPStream()
      streams.append(stream)
      return .eventStream(stream)
    }
    defer { server.stop() }
    let port = try server.listen(host: "127.0.0.1", port: 0)
    let client = try RawSocket(tcpPort: port)
    try client.send("GET /v1/events HTTP/1.1\r\nHost: x\r\n\r\n")
    let stream = try #require(streams.waitForFirst(timeout: .seconds(60)))
    let reasons = Recorder<HTTPStream.EndReason>()
    stream.onClose { reasons.append($0) }
    #expect(stream.write(": hello\n\n"))
    _ = client.receive(timeout: .seconds(60)) { $0.containsSubsequence(": hello") }
    #expect(!stream.isClosed)

    // When the client goes while the stream has nothing to send.
    client.close()

    // Then the stream learns it without a write.
    #expect(reasons.waitForFirst(timeout: .seconds(60)) == .clientGone)
    #expect(stream.isClosed)
    #expect(!stream.write("data: x\n\n"))
  }

  @Test func cuts_off_a_stream_nobody_reads_without_blocking_the_writer() throws {
    let streams = Recorder<HTTPStream>()
    let limit = HTTPStream.defaultLimit
    let server = HTTPServer(maxBodySize: 0) { _ in
      let stream = HTTPStream()
      streams.append(stream)
      return .eventStream(stream)
    }
    defer { server.stop() }
    let port = try server.listen(host: "127.0.0.1", port: 0)
    // A client with a small receive window that never reads.
    let client = try RawSocket(tcpPort: port, receiveBuffer: 4096)
    try client.send("GET /v1/events HTTP/1.1\r\nHost: x\r\n\r\n")
    let stream = try #require(streams.waitForFirst(timeout: .seconds(60)))
    let reasons = Recorder<HTTPStream.EndReason>()
    stream.onClose { reasons.append($0) }

    // When 10 MiB are written as fast as the writer can.
    let piece = Array("data: \(String(repeating: "x", count: 4080))\n\n".utf8)
    var written = 0
    var refused = false
    var mostHeld = 0
    while written < 10 * 1024 * 1024 {
      if !stream.write(piece) {
        refused = true
        break
      }
      written += piece.count
      mostHeld = max(mostHeld, stream.heldCount)
    }

    // Then a write is refused (a write that waited would never return: nobody reads), and
    // no more than the limit was ever held.
    #expect(refused)
    #expect(mostHeld <= limit)
    #expect(stream.heldCount == 0)
    #expect(stream.isClosed)
    #expect(reasons.waitForFirst(timeout: .seconds(60)) == .cutOff)
    #expect(stream.endReason == .cutOff)
    #expect(!stream.write("data: x\n\n"))
  }

  // MARK: Load

  @Test func answers_8_clients_of_200_keep_alive_requests_each() throws {
    let server = HTTPServer(maxBodySize: 0) { request in
      HTTPResponse(status: 200, body: .bytes(Array(request.path.utf8)))
    }
    defer { server.stop() }
    let port = try server.listen(host: "127.0.0.1", port: 0)

    // When 8 curl processes at once each make 200 requests, one after another.
    let runs = try (0..<8).map { client in
      try Curl.start([
        "-w", "|%{http_code}|%{num_connects}\n", "http://127.0.0.1:\(port)/c\(client)/[1-200]",
      ])
    }

    // Then each request got its own answer, all over one connection per client.
    for (client, run) in runs.enumerated() {
      let lines = try run.finish().body.split(separator: "\n")
      #expect(lines.count == 200)
      var connections = 0
      for (index, line) in lines.enumerated() {
        let fields = line.split(separator: "|", omittingEmptySubsequences: false)
        #expect(fields.count == 3)
        guard fields.count == 3 else { continue }
        #expect(fields[0] == "/c\(client)/\(index + 1)")
        #expect(fields[1] == "200")
        connections += Int(fields[2]) ?? 99
      }
      #expect(connections == 1)
    }
  }

  @Test func streams_go_on_while_handlers_block() throws {
    let streams = Recorder<HTTPStream>()
    let entered = Atomic(0)
    let released = Atomic(false)
    let server = HTTPServer(maxBodySize: 0) { request in
      if request.path == "/slow" {
        // As a commit to a journal would, only until the test lets it go.
        entered.add(1, ordering: .relaxed)
        while !released.load(ordering: .relaxed) { Thread.sleep(forTimeInterval: 0.001) }
        return HTTPResponse(status: 204)
      }
      let stream = HTTPStream()
      streams.append(stream)
      return .eventStream(stream)
    }
    defer { server.stop() }
    let port = try server.listen(host: "127.0.0.1", port: 0)
    let client = try RawSocket(tcpPort: port)
    try client.send("GET /v1/events HTTP/1.1\r\nHost: x\r\n\r\n")
    let stream = try #require(streams.waitForFirst(timeout: .seconds(60)))

    // Given 8 clients whose calls block every one of the server's handler threads.
    let slow = try (0..<8).map { _ in try Curl.start(["http://127.0.0.1:\(port)/slow"]) }
    while entered.load(ordering: .relaxed) < 8 { Thread.sleep(forTimeInterval: 0.01) }

    // When ticks are written to the stream,
    let ticking = Thread {
      for index in 0..<75 { stream.write("data: \(index)\n\n") }
    }
    ticking.start()

    // Then every tick arrives while the handlers are still blocked (were the stream held up
    // by them, none would arrive until they are let go, below).
    var received: [UInt8] = []
    for index in 0..<75 {
      let tick = "data: \(index)\n\n"
      if !received.containsSubsequence(tick) {
        received +=
          client.receive(timeout: .seconds(60)) {
            (received + $0).containsSubsequence(tick)
          }.bytes
      }
    }
    #expect(received.containsSubsequence("data: 74\n\n"))
    #expect(entered.load(ordering: .relaxed) == 8)
    released.store(true, ordering: .relaxed)
    for run in slow { #expect(try run.finish().status == 204) }
  }

  // MARK: Stopping

  @Test func stop_with_open_streams_and_a_running_handler_returns_promptly() throws {
    let streams = Recorder<HTTPStream>()
    let late = Recorder<HTTPStream>()
    let server = HTTPServer(maxBodySize: 0) { request in
      if request.path == "/slow" {
        Thread.sleep(forTimeInterval: 5)
        let stream = HTTPStream()
        late.append(stream)
        return .eventStream(stream)
      }
      let stream = HTTPStream(limit: 64 * 1024)
      streams.append(stream)
      return .eventStream(stream)
    }
    let scratch = try ScratchFolder()
    defer { scratch.remove() }
    let socket = scratch.path("control.sock")
    try server.listen(unixSocket: socket)
    let port = try server.listen(host: "127.0.0.1", port: 0)

    // Given an idle stream, a stream being written, a stream nobody reads, and a handler
    // at work on a stream of its own.
    let idle = try RawSocket(unixPath: socket)
    let busy = try RawSocket(tcpPort: port)
    let unread = try RawSocket(tcpPort: port, receiveBuffer: 4096)
    for client in [idle, busy, unread] {
      try client.send("GET /v1/events HTTP/1.1\r\nHost: x\r\n\r\n")
    }
    #expect(streams.wait(forCount: 3, timeout: .seconds(60)))
    let writer = Thread {
      for stream in streams.values { stream.write("data: first\n\n") }
      while streams.values.contains(where: { !$0.isClosed }) {
        streams.values[1...].forEach { $0.write("data: more\n\n") }
        Thread.sleep(forTimeInterval: 0.001)
      }
    }
    writer.start()
    let waiting = try RawSocket(tcpPort: port)
    try waiting.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
    _ = idle.receive(timeout: .seconds(60)) { $0.containsSubsequence("data: first") }
    Thread.sleep(forTimeInterval: 0.1)

    // When the server stops.
    server.stop()

    // Then it returned without waiting for the handler still at work, every stream ended
    // and every connection closed.
    #expect(late.values.isEmpty)
    for stream in streams.values {
      #expect(stream.isClosed)
      #expect(!stream.write("data: after\n\n"))
    }
    #expect(streams.values[0].endReason == .serverStopped)
    for client in [idle, busy, unread, waiting] {
      #expect(client.waitForClose(timeout: .seconds(60)))
    }
    // And the handler that was running ends later, its stream ended, never sent.
    let lateStream = try #require(late.waitForFirst(timeout: .seconds(60)))
    let reasons = Recorder<HTTPStream.EndReason>()
    lateStream.onClose { reasons.append($0) }
    #expect(reasons.waitForFirst(timeout: .seconds(60)) == .serverStopped)
    #expect(throws: HTTPServerError.self) { try server.listen(host: "127.0.0.1", port: 0) }
  }
}

/// The stream's buffer as a value: the limit, the cut-off, and a clean end after a drain.
@Suite("HTTP stream buffer")
struct HTTPStreamBufferTests {
  @Test func a_write_past_the_limit_cuts_the_stream_off_and_drops_what_was_held() {
    var buffer = HTTPStreamBuffer(limit: 10)
    #expect(buffer.append([1, 2, 3, 4, 5, 6]) == .accepted)
    #expect(buffer.append([7, 8, 9, 10]) == .accepted)
    #expect(buffer.append([11]) == .cutOff)
    #expect(buffer.count == 0)
    #expect(buffer.phase == .ended(.cutOff))
    #expect(buffer.append([12]) == .refused)
    #expect(read(&buffer, 4).outcome == .broken)
  }

  @Test func reading_frees_room_and_close_finishes_after_the_drain() {
    var buffer = HTTPStreamBuffer(limit: 8)
    #expect(buffer.append(Array(1...8)) == .accepted)
    let first = read(&buffer, 5)
    #expect(first.outcome == .bytes(5))
    #expect(first.bytes == [1, 2, 3, 4, 5])
    #expect(buffer.append([9, 10, 11, 12, 13]) == .accepted)
    #expect(buffer.count == 8)
    buffer.close()
    #expect(buffer.append([14]) == .refused)
    let second = read(&buffer, 5)
    #expect(second.bytes == [6, 7, 8, 9, 10])
    #expect(read(&buffer, 5).outcome == .bytes(3))
    #expect(read(&buffer, 5).outcome == .finished)
    #expect(buffer.phase == .ended(.finished))
  }

  @Test func reads_cross_the_writes_in_order_however_many_they_are() {
    var buffer = HTTPStreamBuffer(limit: 1 << 20)
    var written: [UInt8] = []
    for index in 0..<500 {
      let chunk = [UInt8](repeating: UInt8(index % 251), count: index % 7)
      written += chunk
      #expect(buffer.append(chunk) == .accepted)
    }
    var read: [UInt8] = []
    while true {
      let (outcome, bytes) = self.read(&buffer, 13)
      guard case .bytes = outcome else { break }
      read += bytes
    }
    #expect(read == written)
    #expect(buffer.count == 0)
  }

  @Test func an_open_empty_buffer_waits_until_it_ends() {
    var buffer = HTTPStreamBuffer(limit: 8)
    #expect(read(&buffer, 5).outcome == .empty)
    let ended = buffer.end(.clientGone)
    let endedAgain = buffer.end(.serverStopped)
    #expect(ended)
    #expect(!endedAgain)
    #expect(buffer.phase == .ended(.clientGone))
  }

  /// Reads at most `size` bytes out of `buffer`.
  private func read(
    _ buffer: inout HTTPStreamBuffer, _ size: Int
  ) -> (outcome: HTTPStreamBuffer.ReadOutcome, bytes: [UInt8]) {
    var out = [UInt8](repeating: 0, count: size)
    let outcome = out.withUnsafeMutableBytes { buffer.read(into: $0) }
    if case .bytes(let count) = outcome { return (outcome, Array(out[..<count])) }
    return (outcome, [])
  }
}

// MARK: - Test fixtures

/// Values gathered from other threads (the handler, `onClose`), with waits.
final class Recorder<Value: Sendable>: Sendable {
  private let storage = Mutex<[Value]>([])

  var values: [Value] { storage.withLock { $0 } }

  func append(_ value: Value) { storage.withLock { $0.append(value) } }

  func wait(forCount count: Int, timeout: Duration) -> Bool {
    let deadline = ContinuousClock.now + timeout
    while values.count < count {
      guard ContinuousClock.now < deadline else { return false }
      Thread.sleep(forTimeInterval: 0.005)
    }
    return true
  }

  func waitForFirst(timeout: Duration) -> Value? {
    wait(forCount: 1, timeout: timeout) ? values.first : nil
  }
}

/// A folder of its own under /tmp, short enough for a socket path.
private struct ScratchFolder {
  let root: String

  init() throws {
    var template = Array("/tmp/haul-http-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else {
      throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
    root = String(cString: made)
  }

  func path(_ name: String) -> String { root + "/" + name }

  func remove() { try? FileManager.default.removeItem(atPath: root) }
}

/// curl, run as a process: the real client the daemon's users have.
private struct Curl {
  struct Answer {
    var status: Int
    var headers: [String: String]
    var body: String
  }

  /// A curl still running.
  struct Run {
    let process: Process
    let output: Pipe
    let headerFile: String

    func finish() throws -> Answer {
      let body = output.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      defer { try? FileManager.default.removeItem(atPath: headerFile) }
      let head = (try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? ""
      var status = 0
      var headers: [String: String] = [:]
      for line in head.components(separatedBy: "\r\n") {
        if line.hasPrefix("HTTP/") {
          status = Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        } else if let colon = line.firstIndex(of: ":") {
          headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
            .trimmingCharacters(in: .whitespaces)
        }
      }
      return Answer(status: status, headers: headers, body: String(decoding: body, as: UTF8.self))
    }
  }

  static func start(_ arguments: [String]) throws -> Run {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
    let headerFile = "/tmp/haul-http-curl-\(UUID().uuidString)"
    process.arguments = ["-sS", "--max-time", "30", "-D", headerFile] + arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    return Run(process: process, output: output, headerFile: headerFile)
  }

  static func run(_ arguments: [String]) throws -> Answer { try start(arguments).finish() }
}

/// A client socket driven byte by byte, for what curl would not do: withhold a body, send
/// a header slowly, stop reading, hang up.
final class RawSocket: Sendable {
  private let descriptor: Int32
  private let closed = Atomic(false)

  init(tcpPort: Int, receiveBuffer: Int? = nil) throws {
    descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    if var size = receiveBuffer.map(Int32.init) {
      setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(tcpPort).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    try connect(to: address)
  }

  init(unixPath: String) throws {
    descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    try connect(to: Self.unixAddress(unixPath))
  }

  deinit { close() }

  func close() {
    if !closed.exchange(true, ordering: .sequentiallyConsistent) { Glibc.close(descriptor) }
  }

  func send(_ text: String) throws { try send(Array(text.utf8)) }

  func send(_ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      let sent = bytes[offset...].withUnsafeBytes {
        Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      guard sent > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
      offset += sent
    }
  }

  /// Reads what comes until `done` holds for it, the peer closes, or `timeout` passes
  /// (`.zero`: only what is there now).
  func receive(
    timeout: Duration, until done: ([UInt8]) -> Bool
  ) -> (bytes: [UInt8], closed: Bool) {
    let deadline = ContinuousClock.now + timeout
    var received: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let left = deadline - ContinuousClock.now
      let milliseconds = Int32(max(0, (left / .milliseconds(1)).rounded(.up)))
      var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      guard poll(&entry, 1, milliseconds) > 0 else { return (received, false) }
      let count = recv(descriptor, &chunk, chunk.count, 0)
      if count <= 0 { return (received, true) }
      received += chunk[..<count]
      if done(received) { return (received, false) }
    }
  }

  /// True when the peer closes (or resets) the connection within `timeout`; what comes
  /// before is read and dropped.
  func waitForClose(timeout: Duration) -> Bool {
    receive(timeout: timeout) { _ in false }.closed
  }

  private func connect<Address>(to address: Address) throws {
    var address = address
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<Address>.size))
      }
    }
    guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
  }

  private static func unixAddress(_ path: String) -> sockaddr_un {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
    return address
  }

  /// Leaves a socket file nobody listens on, as a daemon that died would.
  static func leaveStaleUnixSocket(at path: String) throws {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    defer { Glibc.close(descriptor) }
    var address = unixAddress(path)
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
  }

  /// Whether this machine can bind ::1 (some containers have no IPv6).
  static func loopbackIPv6Works() -> Bool {
    let descriptor = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { Glibc.close(descriptor) }
    var address = sockaddr_in6()
    address.sin6_family = sa_family_t(AF_INET6)
    address.sin6_addr = in6addr_loopback
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0
      }
    }
  }
}

extension Array where Element == UInt8 {
  fileprivate func containsSubsequence(_ text: String) -> Bool {
    let needle = Array(text.utf8)
    guard !needle.isEmpty, needle.count <= count else { return needle.isEmpty }
    for start in 0...(count - needle.count) where self[start] == needle[0] {
      if self[start..<start + needle.count].elementsEqual(needle) { return true }
    }
    return false
  }
}
