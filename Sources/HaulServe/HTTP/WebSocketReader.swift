/// The messages in what a WebSocket client sends, as a value: bytes go in as they arrive
/// (`feed`), and `next()` gives the events they hold one at a time, reassembling fragmented
/// messages (RFC 6455, section 5.4) and checking that a text message is UTF-8.
///
/// Bounds: a message (all of its fragments) over `maxMessageSize` bytes fails with
/// `tooBig`, found from the frame headers before its payload is read whole; what is fed and
/// not yet taken is held, so the connection feeds more only once `next()` has given all it
/// could. After a failure or a close nothing more is given.
struct WebSocketReader {
  enum Event: Equatable {
    /// A whole text message, its UTF-8 bytes.
    case text([UInt8])
    /// A whole binary message.
    case binary([UInt8])
    /// A ping, to be answered with a pong carrying `payload`.
    case ping([UInt8])
    /// A pong (unsolicited ones are allowed, and mean nothing).
    case pong
    /// The client's close, with its status code when it gave one.
    case close(UInt16?)
    /// The client broke the protocol: close with this code.
    case failure(WebSocketFrame.CloseCode)
  }

  let maxMessageSize: Int
  /// Fed bytes are `input[start...]`.
  private var input: [UInt8] = []
  private var start = 0
  /// The fragments of a message begun and not yet finished, and its opcode.
  private var fragments: [UInt8] = []
  private var fragmentOpcode: WebSocketFrame.Opcode?
  private var over = false

  init(maxMessageSize: Int) {
    self.maxMessageSize = maxMessageSize
  }

  mutating func feed(_ bytes: some Collection<UInt8>) {
    guard !over else { return }
    if start > 0, start == input.count {
      input.removeAll(keepingCapacity: true)
      start = 0
    } else if start > 64 * 1024, start > input.count / 2 {
      input.removeSubrange(0..<start)
      start = 0
    }
    input.append(contentsOf: bytes)
  }

  /// The next event in what was fed, or nil when more bytes are needed (or it is over).
  mutating func next() -> Event? {
    while !over {
      let parsed = WebSocketFrame.parse(input[start...], maxPayload: maxMessageSize)
      switch parsed {
      case .incomplete:
        return nil
      case .failure(let code):
        return fail(code)
      case .frame(let frame, let length):
        start += length
        if let event = take(frame) { return event }
      }
    }
    return nil
  }

  /// The event a frame completes, if any.
  private mutating func take(_ frame: WebSocketFrame) -> Event? {
    switch frame.opcode {
    case .ping:
      return .ping(frame.payload)
    case .pong:
      return .pong
    case .close:
      over = true
      guard frame.payload.count != 1 else { return .failure(.protocolError) }
      guard frame.payload.count >= 2 else { return .close(nil) }
      return .close(UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1]))
    case .text, .binary:
      guard fragmentOpcode == nil else { return fail(.protocolError) }
      fragmentOpcode = frame.opcode
      fragments = frame.payload
    case .continuation:
      guard fragmentOpcode != nil else { return fail(.protocolError) }
      guard frame.payload.count <= maxMessageSize - fragments.count else {
        return fail(.tooBig)
      }
      fragments += frame.payload
    }
    guard frame.fin, let opcode = fragmentOpcode else { return nil }
    fragmentOpcode = nil
    var message: [UInt8] = []
    swap(&message, &fragments)
    guard opcode == .text else { return .binary(message) }
    guard String(validating: message, as: UTF8.self) != nil else {
      return fail(.invalidPayload)
    }
    return .text(message)
  }

  private mutating func fail(_ code: WebSocketFrame.CloseCode) -> Event {
    over = true
    input = []
    start = 0
    fragments = []
    return .failure(code)
  }
}
