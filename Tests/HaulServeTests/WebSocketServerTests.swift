import Foundation
import Synchronization
import Testing

@testable import HaulServe

/// WebSocket over the real server: the upgrade through libmicrohttpd, then the loop thread
/// reading, answering, pinging, closing, and cutting off a client that does not read.
@Suite("HTTP server: WebSocket on libmicrohttpd's upgrade")
struct WebSocketServerTests {
  private static let upgrade =
    "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"

  /// A server whose WebSocket answers each text message with it upper-cased, recording the
  /// connections opened and closed.
  private func echoServer(
    maxMessageSize: Int = 1000, outgoingLimit: Int = HTTPStream.defaultLimit,
    opened: Recorder<WebSocketConnection>, closed: Recorder<Int>
  ) -> HTTPServer {
    let handler = WebSocketHandler(
      maxMessageSize: maxMessageSize, outgoingLimit: outgoingLimit,
      opened: { opened.append($0) },
      message: { _, text in Array(String(decoding: text, as: UTF8.self).uppercased().utf8) },
      closed: { _ in closed.append(1) })
    return HTTPServer(maxBodySize: 0) { request in
      WebSocketHandshake.response(to: request, handler: handler)
    }
  }

  /// Opens a WebSocket: the `101` read, and any bytes after it.
  private func open(port: Int, receiveBuffer: Int? = nil) throws -> (RawSocket, [UInt8]) {
    let client = try RawSocket(tcpPort: port, receiveBuffer: receiveBuffer)
    try client.send(Self.upgrade)
    let (bytes, _) = client.receive(timeout: .seconds(60)) { Self.headEnd($0) != nil }
    let end = try #require(Self.headEnd(bytes), "no answer: \(bytes)")
    let head = String(decoding: bytes[..<end], as: UTF8.self)
    #expect(head.hasPrefix("HTTP/1.1 101"), "\(head)")
    #expect(head.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="), "\(head)")
    return (client, Array(bytes[end...]))
  }

  private static func headEnd(_ bytes: [UInt8]) -> Int? {
    let marker = Array("\r\n\r\n".utf8)
    guard bytes.count >= 4 else { return nil }
    for index in 0...(bytes.count - 4) where Array(bytes[index..<index + 4]) == marker {
      return index + 4
    }
    return nil
  }

  /// Reads the server's frames until `count` have come or the connection closes.
  private func frames(
    _ client: RawSocket, after earlier: [UInt8] = [], count: Int
  ) -> (frames: [WebSocketFrame], closed: Bool) {
    var buffer = earlier
    var parsed: [WebSocketFrame] = []
    func take() {
      while let (frame, length) = Self.serverFrame(buffer) {
        parsed.append(frame)
        buffer.removeFirst(length)
      }
    }
    take()
    if parsed.count >= count { return (parsed, false) }
    let (bytes, closed) = client.receive(timeout: .seconds(60)) { received in
      var copy = buffer + received
      var n = parsed.count
      while let (_, length) = Self.serverFrame(copy) {
        n += 1
        copy.removeFirst(length)
      }
      return n >= count
    }
    buffer += bytes
    take()
    return (parsed, closed)
  }

  /// A server frame (unmasked) at the start of `bytes`.
  private static func serverFrame(_ bytes: [UInt8]) -> (WebSocketFrame, Int)? {
    guard bytes.count >= 2, bytes[1] & 0x80 == 0 else { return nil }
    var length = Int(bytes[1])
    var header = 2
    if length == 126 {
      guard bytes.count >= 4 else { return nil }
      length = Int(bytes[2]) << 8 | Int(bytes[3])
      header = 4
    } else if length == 127 {
      guard bytes.count >= 10 else { return nil }
      length = bytes[2..<10].reduce(0) { $0 << 8 | Int($1) }
      header = 10
    }
    guard bytes.count >= header + length,
      let opcode = WebSocketFrame.Opcode(rawValue: bytes[0] & 0x0F)
    else { return nil }
    let frame = WebSocketFrame(
      fin: bytes[0] & 0x80 != 0, opcode: opcode, payload: Array(bytes[header..<header + length]))
    return (frame, header + length)
  }

  @Test func answers_fragmented_messages_and_pings_in_order_then_echoes_the_close() throws {
    let opened = Recorder<WebSocketConnection>()
    let closed = Recorder<Int>()
    let server = echoServer(opened: opened, closed: closed)
    defer { server.stop() }
    let port = try server.listen(host: "127.0.0.1", port: 0)
    let (client, rest) = try open(port: port)

    try client.send(
      clientFrame(.text, Array("hel".utf8), fin: false) + clientFrame(.ping, Array("p1".utf8))
        + clientFrame(.continuation, Array("lo".utf8)) + clientFrame(.text, Array("two".utf8)))
    let (answers, _) = frames(client, after: rest, count: 3)
    #expect(
      answers == [
        WebSocketFrame(opcode: .pong, payload: Array("p1".utf8)),
        WebSocketFrame(opcode: .text, payload: Array("HELLO".utf8)),
        WebSocketFrame(opcode: .text, payload: Array("TWO".utf8)),
      ])

    try client.send(clientFrame(.close, [0x0F, 0xA0]))
    let (closing, ended) = frames(client, count: 2)
    #expect(closing == [WebSocketFrame(opcode: .close, payload: [0x0F, 0xA0])])
    #expect(ended)
    #expect(closed.wait(forCount: 1, timeout: .seconds(60)))
  }

  @Test func closes_with_1009_a_message_over_the_limit() throws {
    let opened = Recorder<WebSocketConnection>()
    let closed = Recorder<Int>()
    let server = echoServer(maxMessageSize: 100, opened: opened, closed: closed)
    defer { server.stop() }
    let port = try server.listen(host: "127.0.0.1", port: 0)
    let (client, rest) = try open(port: port)
    try client.send(clientFrame(.text, Array(repeating: 0x41, count: 101)))
    let (answers, ended) = frames(client, after: rest, count: 2)
    #expect(answers == [WebSocketFrame.close(.tooBig)])
    #expect(ended)
    #expect(closed.wait(forCount: 1, timeout: .seconds(60)))
  }

  @Test func cuts_off_a_client_that_does_not_read_without_blocking_the_sender() throws {
    let opened = Recorder<WebSocketConnection>()
    let closed = Recorder<Int>()
    let limit = 256 * 1024
    let server = echoServer(outgoingLimit: limit, opened: opened, closed: closed)
    defer { server.stop() }
    let port = try server.listen(host: "127.0.0.1", port: 0)
    let (client, _) = try open(port: port, receiveBuffer: 4096)
    let connection = try #require(opened.waitForFirst(timeout: .seconds(60)))

    // When 64 MiB are sent as fast as the sender can, to a client that never reads.
    let message = [UInt8](repeating: 0x78, count: 16 * 1024)
    var sent = 0
    var refused = false
    while sent < 64 << 20 {
      guard connection.send(text: message) else {
        refused = true
        break
      }
      sent += message.count
    }

    // Then a send is refused (one that waited would never return), the connection is over,
    // and the client sees its socket closed.
    #expect(refused)
    #expect(!connection.isOpen)
    #expect(!connection.send(text: Array("more".utf8)))
    #expect(closed.wait(forCount: 1, timeout: .seconds(60)))
    #expect(client.waitForClose(timeout: .seconds(60)))
  }

  @Test func stop_sends_going_away_and_returns_with_a_client_connected() throws {
    let opened = Recorder<WebSocketConnection>()
    let closed = Recorder<Int>()
    let server = echoServer(opened: opened, closed: closed)
    let port = try server.listen(host: "127.0.0.1", port: 0)
    let (client, rest) = try open(port: port)
    #expect(opened.wait(forCount: 1, timeout: .seconds(60)))
    server.stop()
    let (answers, ended) = frames(client, after: rest, count: 2)
    #expect(answers == [WebSocketFrame.close(.goingAway)])
    #expect(ended)
    #expect(closed.values.count == 1)
  }

  @Test func an_idle_websocket_outlives_the_http_idle_timeout() throws {
    let handler = WebSocketHandler(maxMessageSize: 100, message: { _, text in text })
    let server = HTTPServer(maxBodySize: 0, idleTimeout: .seconds(1)) { request in
      WebSocketHandshake.response(to: request, handler: handler)
    }
    defer { server.stop() }
    let port = try server.listen(host: "127.0.0.1", port: 0)
    let (client, rest) = try open(port: port)
    // Silent for well past the timeout that closes an idle HTTP connection: a client
    // waiting for notifications says nothing for hours.
    Thread.sleep(forTimeInterval: 3)
    try client.send(clientFrame(.text, Array("still here".utf8)))
    let (answers, _) = frames(client, after: rest, count: 1)
    #expect(answers == [WebSocketFrame(opcode: .text, payload: Array("still here".utf8))])
  }

  @Test func refuses_an_upgrade_of_another_version_and_answers_plain_requests_beside() throws {
    let opened = Recorder<WebSocketConnection>()
    let closed = Recorder<Int>()
    let server = echoServer(opened: opened, closed: closed)
    defer { server.stop() }
    let port = try server.listen(host: "127.0.0.1", port: 0)
    let client = try RawSocket(tcpPort: port)
    try client.send(Self.upgrade.replacingOccurrences(of: "Version: 13", with: "Version: 8"))
    let (bytes, _) = client.receive(timeout: .seconds(60)) { Self.headEnd($0) != nil }
    #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("HTTP/1.1 426"))
    #expect(opened.values.isEmpty)
  }
}
