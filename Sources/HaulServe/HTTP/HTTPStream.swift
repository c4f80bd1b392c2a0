import Foundation
import Synchronization

/// A response body written over time, for Server-Sent Events: the handler returns it in an
/// `HTTPResponse`, and any thread writes into it for as long as the client stays.
///
/// Back-pressure: writes go into a buffer bounded by `limit` and never wait. The server
/// hands the buffer to the client's socket as fast as the client reads; a write that would
/// take the buffer past `limit` cuts the stream off instead (the write returns false, the
/// connection is closed), so a slow reader never slows the writer nor grows the daemon.
///
/// Ending: `close()` ends the body cleanly once what was written has been handed over. The
/// stream also ends when the client goes away (noticed even while nothing is written), when
/// it is cut off, or when the server stops. From then on `isClosed` is true, writes return
/// false, and the `onClose` action runs, once, on a dispatch queue.
///
/// Threading: every method may be called from any thread; a lock (`state`) makes it
/// `Sendable`.
public final class HTTPStream: Sendable {
  /// Why a stream ended.
  public enum EndReason: Sendable, Hashable {
    /// The writer closed it and everything written was handed to the connection.
    case finished
    /// A write would have passed the limit: the client was reading too slowly.
    case cutOff
    /// The client closed the connection, or it failed.
    case clientGone
    /// The server stopped, or the response never reached the connection.
    case serverStopped
  }

  /// The connection a stream is being sent on, once the server has queued the response.
  struct Attachment: Sendable {
    /// The connection's socket, shut down when the stream is cut off so that
    /// libmicrohttpd closes the connection at once (it may be waiting to write). Valid
    /// while attached: the server detaches the stream in libmicrohttpd's completion
    /// callback, before libmicrohttpd closes the socket.
    var socket: Int32
    /// Makes the server hand held bytes over again after it found none and put the
    /// connection aside (`MHDListener.resume`).
    var wake: @Sendable () -> Void
  }

  private struct State: Sendable {
    var buffer: HTTPStreamBuffer
    var onClose: (@Sendable (EndReason) -> Void)?
    var attachment: Attachment?
    /// The server found the buffer empty and put the connection aside: the next write (or
    /// the writer's `close()`) must wake it.
    var readerWaiting = false

    /// Ends the stream, unless it had ended, and schedules `onClose`.
    mutating func end(_ reason: EndReason) {
      if buffer.end(reason) { ended(reason) }
    }

    /// Schedules `onClose`, if set, for a stream that has just ended.
    mutating func ended(_ reason: EndReason) {
      guard let action = onClose else { return }
      onClose = nil
      HTTPStream.run(action, reason)
    }
  }

  /// The default `limit`: how far a reader may fall behind before it is cut off. The
  /// events stream sets its own (`APIRouter.eventStreamLimit`).
  public static let defaultLimit = 1 << 20

  private let state: Mutex<State>

  /// A stream that holds at most `limit` unsent bytes.
  public init(limit: Int = HTTPStream.defaultLimit) {
    precondition(limit > 0, "an HTTPStream needs room for at least one byte")
    state = Mutex(State(buffer: HTTPStreamBuffer(limit: limit)))
  }

  /// The most bytes the stream holds before it cuts the client off.
  public var limit: Int { state.withLock { $0.buffer.limit } }

  /// True once the stream takes no more writes: closed by the writer, or ended.
  public var isClosed: Bool { state.withLock { $0.buffer.phase != .open } }

  /// Why the stream ended, or nil while it is open or still handing over what the writer
  /// wrote before `close()`.
  public var endReason: EndReason? {
    state.withLock { state in
      if case .ended(let reason) = state.buffer.phase { reason } else { nil }
    }
  }

  /// Appends bytes to the body, without waiting.
  ///
  /// - Returns: false when the stream took nothing: it is closed, or these bytes would have
  ///   passed `limit`, in which case the stream is cut off (`EndReason.cutOff`).
  @discardableResult
  public func write(_ bytes: some Collection<UInt8>) -> Bool {
    write(Array(bytes))
  }

  /// Appends bytes to the body, without waiting; see `write(_:)`. The array is held as it
  /// is, not copied: bytes written to many streams (an event to every reader) are shared.
  @discardableResult
  public func write(_ bytes: [UInt8]) -> Bool {
    let (accepted, wake) = state.withLock { state -> (Bool, (@Sendable () -> Void)?) in
      switch state.buffer.append(bytes) {
      case .accepted:
        defer { state.readerWaiting = false }
        return (true, state.readerWaiting ? state.attachment?.wake : nil)
      case .refused:
        return (false, nil)
      case .cutOff:
        state.ended(.cutOff)
        // Under the lock, so the socket is still the connection's (see `Attachment`).
        if let socket = state.attachment?.socket { _ = shutdown(socket, Int32(SHUT_RDWR)) }
        return (false, state.attachment?.wake)
      }
    }
    wake?()
    return accepted
  }

  /// Appends text to the body as UTF-8, without waiting; see `write(_:)` for bytes.
  @discardableResult
  public func write(_ text: String) -> Bool { write(text.utf8) }

  /// Ends the body cleanly once what was written has been handed over. Later writes
  /// return false; closing twice does nothing.
  public func close() {
    let wake = state.withLock { state -> (@Sendable () -> Void)? in
      state.buffer.close()
      defer { state.readerWaiting = false }
      return state.readerWaiting ? state.attachment?.wake : nil
    }
    wake?()
  }

  /// Sets the action run once when the stream ends, with the reason (replacing one set
  /// before). It runs on a dispatch queue, never inside `write` nor on the server's
  /// network thread, so it may take a lock held around `write`; it may run after
  /// `HTTPServer.stop()` has returned. Set after the stream ended, it runs at once (still
  /// on that queue).
  public func onClose(_ action: @escaping @Sendable (EndReason) -> Void) {
    state.withLock { state in
      state.onClose = action
      if case .ended(let reason) = state.buffer.phase { state.ended(reason) }
    }
  }

  /// Runs an `onClose` action away from the thread that ended the stream.
  private static func run(_ action: @escaping @Sendable (EndReason) -> Void, _ reason: EndReason) {
    DispatchQueue.global().async { action(reason) }
  }

  // MARK: The server's side

  /// Ties the stream to the connection it is sent on. Called on the listener's network
  /// thread when the response is queued.
  func attach(_ attachment: Attachment) {
    state.withLock { $0.attachment = attachment }
  }

  /// Unties the stream from its connection, which libmicrohttpd is closing or reusing,
  /// and ends the stream for `reason` if it had not ended. Called from libmicrohttpd's
  /// completion callback, before the socket is closed.
  func detach(_ reason: EndReason) {
    state.withLock { state in
      state.attachment = nil
      state.end(reason)
    }
  }

  /// Ends the stream for `reason` if it had not ended: the client was seen to hang up, the
  /// server is stopping, or the response never reached a connection.
  func end(_ reason: EndReason) {
    state.withLock { $0.end(reason) }
  }

  /// What `read` did, for the listener's content reader.
  enum ReadOutcome {
    case bytes(Int)
    /// Nothing held: the reader must put the connection aside until `wake`.
    case empty
    /// The body ends cleanly.
    case finished
    /// The body breaks off.
    case broken
  }

  /// Hands held bytes to libmicrohttpd. Called on the listener's network thread, inside
  /// the listener's lock, so that a write after an `.empty` finds `readerWaiting` set
  /// only once the connection is really put aside.
  func read(into destination: UnsafeMutableRawBufferPointer) -> ReadOutcome {
    state.withLock { state in
      switch state.buffer.read(into: destination) {
      case .bytes(let n): return .bytes(n)
      case .empty:
        state.readerWaiting = true
        return .empty
      case .finished:
        state.ended(.finished)
        return .finished
      case .broken: return .broken
      }
    }
  }

  /// The bytes held now: written and not yet handed to the connection.
  var heldCount: Int { state.withLock { $0.buffer.count } }
}
