import Foundation
import Testing

@testable import HaulServe

/// A frame as a client sends it: masked with `mask`, the length in its shortest form.
func clientFrame(
  _ opcode: WebSocketFrame.Opcode, _ payload: [UInt8], fin: Bool = true,
  mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
) -> [UInt8] {
  var bytes = WebSocketFrame(fin: fin, opcode: opcode, payload: []).encoded()
  bytes.removeLast()  // the length byte of an empty payload
  switch payload.count {
  case 0..<126: bytes.append(0x80 | UInt8(payload.count))
  case 126...0xFFFF: bytes += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
  default:
    bytes.append(0x80 | 127)
    for shift in stride(from: 56, through: 0, by: -8) {
      bytes.append(UInt8(truncatingIfNeeded: payload.count >> shift))
    }
  }
  bytes += mask
  for (index, byte) in payload.enumerated() { bytes.append(byte ^ mask[index & 3]) }
  return bytes
}

@Suite("WebSocket frames: parsing a client's, encoding the server's")
struct WebSocketFrameTests {
  @Test func parses_rfc_6455s_masked_hello() {
    // RFC 6455, section 5.7: a single-frame masked text message containing "Hello".
    let bytes: [UInt8] = [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
    #expect(
      WebSocketFrame.parse(bytes, maxPayload: 100)
        == .frame(WebSocketFrame(opcode: .text, payload: Array("Hello".utf8)), length: 11))
  }

  @Test func every_prefix_of_a_frame_is_incomplete() {
    let frame = clientFrame(.text, Array(repeating: 0x41, count: 300))
    for end in 0..<frame.count {
      #expect(WebSocketFrame.parse(frame[..<end], maxPayload: 1000) == .incomplete)
    }
    guard case .frame(let parsed, let length) = WebSocketFrame.parse(frame, maxPayload: 1000)
    else {
      Issue.record("the whole frame did not parse")
      return
    }
    #expect(length == frame.count)
    #expect(parsed.payload == Array(repeating: 0x41, count: 300))
  }

  @Test func reads_16_and_64_bit_lengths_and_takes_only_its_own_bytes() {
    for size in [125, 126, 65535, 65536, 70000] {
      let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0) }
      let next = clientFrame(.ping, [1])
      let parsed = WebSocketFrame.parse(
        clientFrame(.binary, payload) + next, maxPayload: 100_000)
      let header = size < 126 ? 6 : size <= 0xFFFF ? 8 : 14
      #expect(
        parsed == .frame(WebSocketFrame(opcode: .binary, payload: payload), length: header + size),
        "size \(size)")
    }
  }

  @Test func refuses_what_rfc_6455_forbids_a_client() {
    let hello = clientFrame(.text, Array("Hello".utf8))
    var unmasked = hello
    unmasked[1] &= 0x7F
    var reserved = hello
    reserved[0] |= 0x40
    var unknownOpcode = hello
    unknownOpcode[0] = 0x83
    let longPing = clientFrame(.ping, Array(repeating: 0, count: 126))
    let fragmentedPing = clientFrame(.ping, [1], fin: false)
    for (name, bytes) in [
      ("unmasked", unmasked), ("reserved bit", reserved), ("opcode 3", unknownOpcode),
      ("ping over 125 bytes", longPing), ("fragmented ping", fragmentedPing),
    ] {
      #expect(WebSocketFrame.parse(bytes, maxPayload: 1000) == .failure(.protocolError), "\(name)")
    }
  }

  @Test func refuses_a_payload_over_the_bound_from_its_header_alone() {
    // Only the header of a frame announcing 1 GiB: refused before any payload arrives.
    let header: [UInt8] = [0x81, 0x80 | 127, 0, 0, 0, 0, 0x40, 0, 0, 0]
    #expect(WebSocketFrame.parse(header, maxPayload: 1 << 20) == .failure(.tooBig))
    #expect(
      WebSocketFrame.parse(clientFrame(.text, [1, 2, 3]), maxPayload: 2) == .failure(.tooBig))
  }

  @Test func encodes_the_servers_frames_unmasked_with_the_shortest_length() {
    #expect(
      WebSocketFrame(opcode: .text, payload: Array("Hi".utf8)).encoded() == [0x81, 2, 0x48, 0x69])
    #expect(
      Array(WebSocketFrame(opcode: .text, payload: .init(repeating: 0, count: 126)).encoded()[..<4])
        == [0x81, 126, 0, 126])
    #expect(
      Array(
        WebSocketFrame(opcode: .binary, payload: .init(repeating: 0, count: 65536)).encoded()[..<10]
      ) == [0x82, 127, 0, 0, 0, 0, 0, 1, 0, 0])
    #expect(WebSocketFrame.close(.goingAway).encoded() == [0x88, 2, 0x03, 0xE9])
    #expect(WebSocketFrame(fin: false, opcode: .continuation).encoded() == [0x00, 0])
  }
}

@Suite("WebSocket reader: messages out of a client's bytes")
struct WebSocketReaderTests {
  private func events(_ bytes: [UInt8], limit: Int = 1000, byteByByte: Bool = false)
    -> [WebSocketReader.Event]
  {
    var reader = WebSocketReader(maxMessageSize: limit)
    var events: [WebSocketReader.Event] = []
    let pieces = byteByByte ? bytes.map { [$0] } : [bytes]
    for piece in pieces {
      reader.feed(piece)
      while let event = reader.next() { events.append(event) }
    }
    return events
  }

  @Test func reassembles_a_fragmented_text_message_with_a_ping_between_its_fragments() {
    let bytes =
      clientFrame(.text, Array("{\"id\":".utf8), fin: false)
      + clientFrame(.ping, Array("p".utf8))
      + clientFrame(.continuation, Array("1,".utf8), fin: false)
      + clientFrame(.continuation, Array("\"x\":2}".utf8))
      + clientFrame(.text, Array("next".utf8))
    let expected: [WebSocketReader.Event] = [
      .ping(Array("p".utf8)), .text(Array("{\"id\":1,\"x\":2}".utf8)), .text(Array("next".utf8)),
    ]
    #expect(events(bytes) == expected)
    #expect(events(bytes, byteByByte: true) == expected)
  }

  @Test func refuses_a_continuation_without_a_start_and_a_new_message_inside_one() {
    #expect(events(clientFrame(.continuation, [0x41])) == [.failure(.protocolError)])
    let nested = clientFrame(.text, [0x41], fin: false) + clientFrame(.text, [0x42])
    #expect(events(nested) == [.failure(.protocolError)])
  }

  @Test func bounds_a_message_across_its_fragments() {
    let bytes =
      clientFrame(.text, Array(repeating: 0x41, count: 60), fin: false)
      + clientFrame(.continuation, Array(repeating: 0x41, count: 60))
    #expect(events(bytes, limit: 100) == [.failure(.tooBig)])
    #expect(events(bytes, limit: 120) == [.text(Array(repeating: 0x41, count: 120))])
  }

  @Test func refuses_text_that_is_not_utf8() {
    #expect(events(clientFrame(.text, [0x41, 0xC3])) == [.failure(.invalidPayload)])
    #expect(events(clientFrame(.text, Array("é".utf8))) == [.text(Array("é".utf8))])
  }

  @Test func reads_a_close_and_nothing_after_it() {
    let bytes = clientFrame(.close, [0x03, 0xE8]) + clientFrame(.text, [0x41])
    #expect(events(bytes) == [.close(1000)])
    #expect(events(clientFrame(.close, [])) == [.close(nil)])
    #expect(events(clientFrame(.close, [0x03])) == [.failure(.protocolError)])
  }
}

@Suite("WebSocket handshake")
struct WebSocketHandshakeTests {
  private let handler = WebSocketHandler(maxMessageSize: 100, message: { _, _ in nil })

  private func request(_ headers: [String: String], method: String = "GET") -> HTTPRequest {
    HTTPRequest(method: method, path: "/jsonrpc", headers: headers, listener: .unix)
  }

  private let valid = [
    "upgrade": "websocket", "connection": "keep-alive, Upgrade",
    "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", "sec-websocket-version": "13",
  ]

  @Test func accepts_rfc_6455s_sample_key() {
    // RFC 6455, section 1.3.
    #expect(
      WebSocketHandshake.accept(key: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    let response = WebSocketHandshake.response(to: request(valid), handler: handler)
    #expect(response.status == 101)
    #expect(response.headers["Upgrade"] == "websocket")
    #expect(response.headers["Sec-WebSocket-Accept"] == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    guard case .webSocket = response.body else {
      Issue.record("a 101 without the handler")
      return
    }
  }

  @Test func refuses_a_malformed_handshake() {
    var shortKey = valid
    shortKey["sec-websocket-key"] = "c2hvcnQ="
    var noConnection = valid
    noConnection["connection"] = "keep-alive"
    #expect(WebSocketHandshake.response(to: request(shortKey), handler: handler).status == 400)
    #expect(WebSocketHandshake.response(to: request(noConnection), handler: handler).status == 400)
    #expect(
      WebSocketHandshake.response(to: request(valid, method: "POST"), handler: handler).status
        == 400)
    var version8 = valid
    version8["sec-websocket-version"] = "8"
    let refused = WebSocketHandshake.response(to: request(version8), handler: handler)
    #expect(refused.status == 426)
    #expect(refused.headers["Sec-WebSocket-Version"] == "13")
  }
}
