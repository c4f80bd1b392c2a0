/// One WebSocket frame (RFC 6455, section 5.2), and the pure parsing and encoding of frames
/// as the server side sees them: frames from a client are masked, frames to it are not.
///
/// No extension is negotiated, so the three reserved bits must be clear; no subprotocol is
/// either. Parsing never allocates more than the frame's payload, and refuses a payload over
/// the caller's bound from its header alone, before a byte of it is read.
public struct WebSocketFrame: Sendable, Equatable {
  /// The frame's opcode (RFC 6455, section 5.2).
  public enum Opcode: UInt8, Sendable {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    /// Close, ping and pong: never fragmented, at most 125 bytes of payload.
    public var isControl: Bool { rawValue & 0x8 != 0 }
  }

  /// The close status codes the server sends (RFC 6455, section 7.4.1).
  public enum CloseCode: UInt16, Sendable {
    case normal = 1000
    case goingAway = 1001
    case protocolError = 1002
    case unsupportedData = 1003
    case invalidPayload = 1007
    case tooBig = 1009
  }

  /// Whether this is the last frame of its message.
  public var fin: Bool
  public var opcode: Opcode
  /// The payload, unmasked.
  public var payload: [UInt8]

  public init(fin: Bool = true, opcode: Opcode, payload: [UInt8] = []) {
    self.fin = fin
    self.opcode = opcode
    self.payload = payload
  }

  /// A close frame carrying `code` (and no reason).
  public static func close(_ code: CloseCode) -> WebSocketFrame {
    WebSocketFrame(
      opcode: .close, payload: [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)])
  }

  /// What `parse` found at the start of the bytes.
  public enum Parsed: Sendable, Equatable {
    /// A whole frame, which took the first `length` bytes.
    case frame(WebSocketFrame, length: Int)
    /// The bytes hold only the beginning of a frame.
    case incomplete
    /// The bytes break the protocol; the connection is closed with `code`.
    case failure(CloseCode)
  }

  /// Parses the frame at the start of `bytes`, a client's: masked, reserved bits clear, a
  /// known opcode, a control frame unfragmented and short, and a payload of at most
  /// `maxPayload` bytes (else `tooBig`).
  public static func parse(_ bytes: some RandomAccessCollection<UInt8>, maxPayload: Int) -> Parsed {
    var cursor = bytes.startIndex
    func next() -> UInt8? {
      guard cursor != bytes.endIndex else { return nil }
      defer { cursor = bytes.index(after: cursor) }
      return bytes[cursor]
    }
    guard let first = next(), let second = next() else { return .incomplete }
    guard first & 0x70 == 0 else { return .failure(.protocolError) }
    guard let opcode = Opcode(rawValue: first & 0x0F) else { return .failure(.protocolError) }
    let fin = first & 0x80 != 0
    guard second & 0x80 != 0 else { return .failure(.protocolError) }
    var length = UInt64(second & 0x7F)
    if opcode.isControl, !fin || length > 125 { return .failure(.protocolError) }
    let extra = length == 126 ? 2 : length == 127 ? 8 : 0
    if extra > 0 {
      length = 0
      for _ in 0..<extra {
        guard let byte = next() else { return .incomplete }
        length = length << 8 | UInt64(byte)
      }
      // The most significant bit of a 64-bit length must be 0.
      guard length >> 63 == 0 else { return .failure(.protocolError) }
    }
    guard length <= UInt64(maxPayload) else { return .failure(.tooBig) }
    var mask: [UInt8] = []
    for _ in 0..<4 {
      guard let byte = next() else { return .incomplete }
      mask.append(byte)
    }
    let count = Int(length)
    guard bytes.distance(from: cursor, to: bytes.endIndex) >= count else { return .incomplete }
    var payload = [UInt8](repeating: 0, count: count)
    for index in 0..<count {
      payload[index] = bytes[cursor] ^ mask[index & 3]
      cursor = bytes.index(after: cursor)
    }
    return .frame(
      WebSocketFrame(fin: fin, opcode: opcode, payload: payload),
      length: bytes.distance(from: bytes.startIndex, to: cursor))
  }

  /// The frame as the server sends it: unmasked, the length in its shortest form.
  public func encoded() -> [UInt8] {
    var bytes: [UInt8] = [(fin ? 0x80 : 0) | opcode.rawValue]
    bytes.reserveCapacity(payload.count + 10)
    switch payload.count {
    case 0..<126:
      bytes.append(UInt8(payload.count))
    case 126...0xFFFF:
      bytes += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
    default:
      bytes.append(127)
      for shift in stride(from: 56, through: 0, by: -8) {
        bytes.append(UInt8(truncatingIfNeeded: UInt64(payload.count) >> UInt64(shift)))
      }
    }
    bytes += payload
    return bytes
  }
}
