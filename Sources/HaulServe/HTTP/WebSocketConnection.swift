internal import CMicroHTTPD
import Foundation
import Synchronization

/// One WebSocket connection: the socket libmicrohttpd handed over after the `101` answer,
/// the messages read from it, and the bytes waiting to be sent on it.
///
/// Driven by its listener's `WebSocketLoop` thread, which polls the socket, reads
/// (`readable`), writes what waits (`writable`), and closes it (`finish`). Each text message
/// goes to the handler on the server's handler pool; the connection reads nothing more until
/// the answer is queued, so a client that floods it waits on its own socket.
///
/// Back-pressure: `send` never waits. Bytes go straight to the socket while it takes them;
/// what it does not take waits in a buffer bounded by the handler's `outgoingLimit`, and a
/// send that would pass the limit cuts the client off (the socket is shut down, the
/// connection closed), so a slow reader never slows the sender nor grows the daemon. The
/// answer to a client's own message is queued whatever its size (the client asked for it),
/// and the next message is taken only once what waits is under half the limit, so a client
/// that sends without reading holds at most the limit and one answer.
///
/// Threading: `send` and `close` may be called from any thread; a lock (`state`) covers
/// everything that changes. The socket stays open until `finish`, which only the loop's
/// thread calls (or the listener, for a connection the loop never took), and which marks the connection closed under the lock before giving the
/// socket back to libmicrohttpd: a sender that finds it open under the lock may use it.
public final class WebSocketConnection: Sendable {
  enum Phase: Equatable {
    case open
    /// A close frame is queued: nothing more is read or sent; the connection ends once what
    /// waits has been sent.
    case closing
    /// Cut off as too slow a reader, or the client went away: it ends at once.
    case broken
    /// Ended; the socket is libmicrohttpd's again.
    case closed
  }

  private struct State: Sendable {
    var phase = Phase.open
    /// Bytes waiting to be sent: `outbox[start...]`.
    var outbox: [UInt8] = []
    var start = 0
    var reader: WebSocketReader
    /// A message is with the handler: nothing more is taken until its answer is queued.
    var busy = false

    var waiting: Int { outbox.count - start }
  }

  /// libmicrohttpd's handle of the upgraded connection: only `finish` uses it, once, on the
  /// loop's thread.
  // unchecked: only `finish` uses the handle, once, on the loop's thread.
  private struct Upgrade: @unchecked Sendable {
    let handle: OpaquePointer
  }

  let socket: Int32
  private let upgrade: Upgrade
  let handler: WebSocketHandler
  private let pool: HTTPHandlerPool
  /// Wakes the loop's thread, to poll for writing or to go on with the messages read.
  private let wake: @Sendable () -> Void
  private let state: Mutex<State>

  init(
    socket: Int32, upgrade: OpaquePointer, handler: WebSocketHandler, pool: HTTPHandlerPool,
    wake: @escaping @Sendable () -> Void
  ) {
    self.socket = socket
    self.upgrade = Upgrade(handle: upgrade)
    self.handler = handler
    self.pool = pool
    self.wake = wake
    state = Mutex(State(reader: WebSocketReader(maxMessageSize: handler.maxMessageSize)))
    _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
  }

  /// Whether messages may still be sent.
  public var isOpen: Bool { state.withLock { $0.phase == .open } }

  /// Sends `text`, UTF-8 bytes, as one text message, without waiting.
  ///
  /// - Returns: false when nothing was queued: the connection is closing or closed, or the
  ///   message would have passed `outgoingLimit`, in which case the client is cut off.
  @discardableResult
  public func send(text: [UInt8]) -> Bool {
    queue(WebSocketFrame(opcode: .text, payload: text).encoded())
  }

  /// Sends whole frames already encoded (`WebSocketFrame.encoded()`, one after another),
  /// without waiting: a message for many connections is framed once, and several go out
  /// in one write. The limit and the return value are `send(text:)`'s, for all of them.
  @discardableResult
  func send(frames: [UInt8]) -> Bool {
    queue(frames)
  }

  /// Closes the connection with `normal` once what was sent before has gone out.
  public func close() {
    let queued = state.withLock { state -> Bool in
      guard state.phase == .open else { return false }
      closeLocked(&state, .normal)
      return true
    }
    if queued { wake() }
  }

  // MARK: The loop's side

  /// Feeds bytes libmicrohttpd had read past the request's header.
  func feed(_ bytes: UnsafeRawBufferPointer) {
    guard !bytes.isEmpty else { return }
    state.withLock { $0.reader.feed(bytes) }
  }

  /// The events to poll the socket for; nil when the connection is to be finished.
  func pollEvents() -> Int16? {
    state.withLock { state -> Int16? in
      switch state.phase {
      case .broken, .closed: return nil
      case .closing where state.waiting == 0: return nil
      case .closing: return Int16(POLLOUT)
      case .open:
        var events: Int16 = 0
        if !state.busy, state.waiting <= handler.outgoingLimit / 2 { events |= Int16(POLLIN) }
        if state.waiting > 0 { events |= Int16(POLLOUT) }
        return events
      }
    }
  }

  /// Reads what the socket holds (up to one block) and acts on the events it completes.
  func readable() {
    var block = [UInt8](repeating: 0, count: Self.readBlock)
    let count = block.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
    state.withLock { state in
      guard state.phase == .open else { return }
      if count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        state.phase = .broken
        return
      }
      if count > 0 { state.reader.feed(block[0..<count]) }
    }
    advance()
  }

  /// Writes what waits, as far as the socket takes it.
  func writable() {
    state.withLock { flushLocked(&$0) }
  }

  /// Acts on the events read and not yet acted on, until a message goes to the handler.
  func advance() {
    while let message = nextMessage() {
      let handed = pool.run { [self] in
        let answer = handler.message(self, message)
        state.withLock { state in
          if let answer, state.phase == .open {
            appendLocked(&state, WebSocketFrame(opcode: .text, payload: answer).encoded())
          }
          state.busy = false
        }
        wake()
      }
      if !handed {
        // The server is stopping.
        state.withLock { closeLocked(&$0, .goingAway) }
        return
      }
    }
  }

  /// The next text message for the handler, having answered the control frames before it.
  private func nextMessage() -> [UInt8]? {
    state.withLock { state -> [UInt8]? in
      while state.phase == .open, !state.busy, state.waiting <= handler.outgoingLimit / 2,
        let event = state.reader.next()
      {
        switch event {
        case .text(let message):
          state.busy = true
          return message
        case .binary:
          closeLocked(&state, .unsupportedData)
        case .ping(let payload):
          _ = queueLocked(&state, WebSocketFrame(opcode: .pong, payload: payload).encoded())
        case .pong:
          continue
        case .close(let code):
          // Echoes the client's code (RFC 6455, section 5.5.1), or closes plainly.
          state.phase = .closing
          let payload = code.map { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } ?? []
          appendLocked(&state, WebSocketFrame(opcode: .close, payload: payload).encoded())
        case .failure(let code):
          closeLocked(&state, code)
        }
      }
      return nil
    }
  }

  /// Ends the connection: sends a `goingAway` close first when `goingAway` (the server
  /// stops) and the socket takes it, gives the socket back to libmicrohttpd, and tells the
  /// handler. Called once, on the loop's thread.
  func finish(goingAway: Bool = false) {
    state.withLock { state in
      if goingAway, state.phase == .open {
        closeLocked(&state, .goingAway)
      }
      state.phase = .closed
      state.outbox = []
      state.start = 0
    }
    _ = haul_mhd_upgrade_close(upgrade.handle)
    handler.closed(self)
  }

  // MARK: Under the lock

  /// Queues a close frame with `code`; nothing is read or sent after it.
  private func closeLocked(_ state: inout State, _ code: WebSocketFrame.CloseCode) {
    state.phase = .closing
    appendLocked(&state, WebSocketFrame.close(code).encoded())
  }

  /// Queues `bytes` on an open connection, cutting it off if they pass the limit.
  private func queue(_ bytes: [UInt8]) -> Bool {
    let (queued, needsWake) = state.withLock { state -> (Bool, Bool) in
      let queued = queueLocked(&state, bytes)
      return (queued, state.phase == .broken || state.waiting > 0)
    }
    if needsWake { wake() }
    return queued
  }

  private func queueLocked(_ state: inout State, _ bytes: [UInt8]) -> Bool {
    guard state.phase == .open else { return false }
    guard bytes.count <= handler.outgoingLimit - state.waiting else {
      state.phase = .broken
      state.outbox = []
      state.start = 0
      // The socket is still the connection's (see "Threading"): shutting it down ends
      // what the client was sent mid-frame.
      _ = shutdown(socket, Int32(SHUT_RDWR))
      return false
    }
    appendLocked(&state, bytes)
    return true
  }

  /// Appends to the outbox, whatever the limit (control frames), and writes what it can.
  private func appendLocked(_ state: inout State, _ bytes: [UInt8]) {
    state.outbox += bytes
    flushLocked(&state)
  }

  /// Sends what waits, without waiting, as far as the socket takes it.
  private func flushLocked(_ state: inout State) {
    guard state.phase == .open || state.phase == .closing else { return }
    while state.waiting > 0 {
      let sent = state.outbox.withUnsafeBytes { bytes in
        Glibc.send(
          socket, bytes.baseAddress! + state.start, state.waiting,
          Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
      }
      if sent > 0 {
        state.start += sent
        continue
      }
      if sent < 0, errno == EINTR { continue }
      if sent < 0, errno != EAGAIN, errno != EWOULDBLOCK {
        state.phase = .broken
        state.outbox = []
        state.start = 0
      }
      break
    }
    if state.start == state.outbox.count {
      state.outbox.removeAll(keepingCapacity: state.outbox.capacity <= Self.keptCapacity)
      state.start = 0
    } else if state.start > Self.keptCapacity, state.start > state.outbox.count / 2 {
      state.outbox.removeSubrange(0..<state.start)
      state.start = 0
    }
  }

  /// How much one `readable` reads at most.
  private static let readBlock = 16 * 1024
  /// The storage an emptied outbox keeps, and how far sending runs ahead before the outbox
  /// is compacted.
  private static let keptCapacity = 64 * 1024
}
