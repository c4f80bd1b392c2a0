import Foundation
import Synchronization

/// The thread that drives a listener's WebSocket connections: one `poll` over every
/// upgraded socket and a wake-up pipe. It reads what clients send, writes what waits, and
/// closes the connections that are done; the messages themselves are answered on the
/// server's handler pool (`WebSocketConnection.advance`).
///
/// libmicrohttpd hands an upgraded socket over and watches it no more (0.9.75 has no
/// WebSocket framing), so a thread of the server's own polls it. One thread for all of a
/// listener's connections rather than one each: an idle client costs a socket, not a thread.
/// It is woken (`wake`) when a connection has bytes the socket did not take, or an answer
/// was queued and the connection may read again, or a connection is to be closed.
///
/// Threading: `add`, `wake` and `stop` may be called from any thread. The pipe's ends are
/// closed when the loop is freed, after the last connection (whose `wake` holds it) has gone,
/// so a late wake never writes to a reused descriptor.
final class WebSocketLoop: Sendable {
  private struct State {
    var connections: [WebSocketConnection] = []
    var stopping = false
  }

  private let wakePipe: WakePipe
  private let state = Mutex(State())
  private let finished = DispatchSemaphore(value: 0)

  /// Makes the wake-up pipe and starts the thread.
  init() throws(HTTPServerError) {
    wakePipe = try WakePipe()
    let thread = Thread { [self] in
      run()
      finished.signal()
    }
    thread.name = "haul-websocket"
    thread.start()
  }

  deinit {
    wakePipe.close()
  }

  /// Takes `connection` into the loop; false when the loop has stopped (the caller closes
  /// it).
  func add(_ connection: WebSocketConnection) -> Bool {
    let added = state.withLock { state in
      guard !state.stopping else { return false }
      state.connections.append(connection)
      return true
    }
    if added { wake() }
    return added
  }

  /// Makes the thread look at every connection again.
  func wake() {
    wakePipe.wake()
  }

  /// Closes every connection (each sent a `goingAway` close if its socket takes it) and
  /// returns once the thread has ended.
  func stop() {
    let first = state.withLock { state in
      defer { state.stopping = true }
      return !state.stopping
    }
    guard first else { return }
    wake()
    finished.wait()
  }

  private func run() {
    var polled: [pollfd] = []
    var watched: [WebSocketConnection] = []
    while true {
      let (connections, stopping) = state.withLock { ($0.connections, $0.stopping) }
      if stopping { break }
      polled.removeAll(keepingCapacity: true)
      watched.removeAll(keepingCapacity: true)
      polled.append(pollfd(fd: wakePipe.readEnd, events: Int16(POLLIN), revents: 0))
      var done: [WebSocketConnection] = []
      for connection in connections {
        connection.advance()
        guard let events = connection.pollEvents() else {
          done.append(connection)
          continue
        }
        polled.append(pollfd(fd: connection.socket, events: events, revents: 0))
        watched.append(connection)
      }
      if !done.isEmpty {
        let finishing = Set(done.map(ObjectIdentifier.init))
        state.withLock { $0.connections.removeAll { finishing.contains(ObjectIdentifier($0)) } }
        for connection in done { connection.finish() }
        continue
      }
      guard poll(&polled, nfds_t(polled.count), -1) > 0 else { continue }
      if polled[0].revents != 0 { wakePipe.drain() }
      for (entry, connection) in zip(polled.dropFirst(), watched) where entry.revents != 0 {
        if entry.revents & Int16(POLLOUT) != 0 { connection.writable() }
        let readable = Int16(POLLIN) | Int16(POLLHUP) | Int16(POLLERR) | WakePipe.peerHangUp
        if entry.revents & readable != 0 { connection.readable() }
      }
    }
    let connections = state.withLock { $0.connections.take() }
    for connection in connections { connection.finish(goingAway: true) }
  }
}

extension Array {
  /// Takes the elements out, leaving the array empty.
  fileprivate mutating func take() -> [Element] {
    defer { self = [] }
    return self
  }
}
