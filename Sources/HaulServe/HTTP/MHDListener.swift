internal import CMicroHTTPD
import Foundation
import Synchronization

/// One listening socket served by one libmicrohttpd daemon: the adapter between
/// libmicrohttpd's callbacks and the server's handler. `HTTPServer` holds one per listener.
///
/// Threading mode: one internal polling thread per listener, on epoll
/// (`MHD_USE_EPOLL_INTERNAL_THREAD`), with suspend and resume
/// (`MHD_ALLOW_SUSPEND_RESUME`). That thread only moves bytes: it reads requests, copies
/// bodies and stream chunks, and writes responses; it never waits on the handler. When a
/// request is complete the connection is put aside (`MHD_suspend_connection`) and the
/// handler runs on the server's `HTTPHandlerPool`; its answer comes back through
/// `MHD_resume_connection`, and is queued when libmicrohttpd calls the access handler
/// again. So:
/// - Idle or trickling connections cost a socket and libmicrohttpd's per-connection pool
///   (32 KiB), never a thread, and time out after `idleTimeoutSeconds` without a byte.
/// - A handler that blocks (an SQLite commit) holds only its own request; streams and
///   requests on other connections go on.
/// - A stream with nothing to send is put aside too (no busy polling); a write wakes it.
///   Held bytes are bounded by the stream, libmicrohttpd's by its pool: a slow reader
///   costs no more than that (`HTTPStream`).
/// - Unix sockets are served as TCP: libmicrohttpd takes any listening socket.
/// A thread pool (`MHD_OPTION_THREAD_POOL_SIZE`) or a thread per connection would run the
/// handler on a network thread, stalling the connections that share it, or spend a thread
/// per idle client.
///
/// WebSocket (the aria2 RPC's) comes in through the same access handler: the handler answers
/// `101` with a `WebSocketHandler` (`HTTPResponse.Body.webSocket`); with `MHD_ALLOW_UPGRADE`
/// the response made by `MHD_create_response_for_upgrade` hands the socket over once the
/// answer is sent, and the listener's `WebSocketLoop`, a thread started with the first
/// upgrade, drives it from then on (libmicrohttpd 0.9.75 has no WebSocket framing).
///
/// Lifetime: libmicrohttpd holds the listener as its callbacks' context, retained by
/// `start` and released by `stop` once the daemon has stopped. Each request's
/// `HTTPExchange` is retained as libmicrohttpd's request context, from the first call to
/// the completion callback.
///
/// Locking: `gate` holds the connections put aside. Suspending one, and resuming one,
/// happen under it, so each suspension is resumed exactly once, and `stop` resumes all of
/// them and lets no more be put aside before it stops the daemon (libmicrohttpd panics on
/// a stop with connections suspended); it closes the upgraded connections first too.
/// Order: `gate`, then a stream's lock, then libmicrohttpd's.
final class MHDListener: Sendable {
  struct Configuration: Sendable {
    var maxBodySize: Int
    /// libmicrohttpd's `MHD_OPTION_CONNECTION_TIMEOUT`; 0 for none.
    var idleTimeoutSeconds: UInt32
    var handler: @Sendable (HTTPRequest) -> HTTPResponse
    /// Where the handler runs: threads of its own, off the network thread.
    var handlerPool: HTTPHandlerPool
  }

  /// A connection put aside, until the handler answers or its stream has more to send.
  private struct Aside {
    let exchange: HTTPExchange
    /// The stream being sent, when it is one that waits for writes.
    let stream: HTTPStream?
    /// The socket the watcher polls for a hang-up, for a stream.
    let watchedSocket: Int32?
  }

  private struct Gate {
    var stopping = false
    var aside: [ObjectIdentifier: Aside] = [:]
  }

  let kind: HTTPRequest.Listener
  let configuration: Configuration
  private let socketFile: HTTPListenSocket.SocketFile?
  private let gate = Mutex(Gate())
  /// A running daemon: `MHD_stop_daemon` may be called from any thread, and only `stop()`
  /// uses the handle, once, after taking it out of `daemon`.
  // unchecked: only `stop()` uses the handle, once, taken out under the lock.
  private struct Daemon: @unchecked Sendable {
    let handle: OpaquePointer
  }

  /// The running daemon; taken by `stop`.
  private let daemon = Mutex<Daemon?>(nil)
  private let watcher: HTTPStreamWatcher

  /// The thread driving the upgraded connections, started with the first.
  private enum WebSockets {
    case none
    case running(WebSocketLoop)
    case stopped
  }

  private let webSockets = Mutex(WebSockets.none)

  /// The size of the blocks a stream's content reader is asked for.
  private static let streamBlockSize = 16 * 1024

  private init(
    kind: HTTPRequest.Listener, configuration: Configuration,
    socketFile: HTTPListenSocket.SocketFile?, watcher: HTTPStreamWatcher
  ) {
    self.kind = kind
    self.configuration = configuration
    self.socketFile = socketFile
    self.watcher = watcher
  }

  /// Starts a daemon on `socket`, which it then owns.
  static func start(
    on socket: HTTPListenSocket, configuration: Configuration
  ) throws(HTTPServerError) -> MHDListener {
    let watcher: HTTPStreamWatcher
    do {
      watcher = try HTTPStreamWatcher()
    } catch {
      close(socket.descriptor)
      socket.file?.remove()
      throw error
    }
    let listener = MHDListener(
      kind: socket.listener, configuration: configuration, socketFile: socket.file,
      watcher: watcher)
    watcher.start(
      sockets: { [listener] in listener.watchedSockets() },
      hangUp: { [listener] in listener.hangUp($0) })
    let context = Unmanaged.passRetained(listener).toOpaque()
    let flags =
      MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
      | MHD_ALLOW_UPGRADE.rawValue
    guard
      let started = haul_mhd_start_daemon(
        flags, socket.descriptor, configuration.idleTimeoutSeconds, accessCallback, context,
        completedCallback, context)
    else {
      // libmicrohttpd may or may not have closed the socket on its way out: it is left
      // open rather than risk closing a descriptor reused meanwhile.
      Unmanaged<MHDListener>.fromOpaque(context).release()
      watcher.stop()
      socket.file?.remove()
      throw HTTPServerError(.daemon, "libmicrohttpd did not start on \(socket.listener)")
    }
    listener.daemon.withLock { $0 = Daemon(handle: started) }
    return listener
  }

  /// Closes the listening socket and every connection, streams included, and returns once
  /// libmicrohttpd's thread and the watcher's have ended. A handler still running keeps
  /// running; its answer is dropped.
  func stop() {
    gate.withLock { gate in
      gate.stopping = true
      for aside in gate.aside.values { MHD_resume_connection(aside.exchange.connection) }
      gate.aside = [:]
    }
    let loop = webSockets.withLock { webSockets -> WebSocketLoop? in
      defer { webSockets = .stopped }
      if case .running(let loop) = webSockets { return loop }
      return nil
    }
    loop?.stop()
    guard let running = daemon.withLock({ $0.take() }) else { return }
    // Its thread closes every connection (each completion callback ending its stream)
    // and has ended when this returns.
    MHD_stop_daemon(running.handle)
    watcher.stop()
    socketFile?.remove()
    Unmanaged.passUnretained(self).release()
  }

  // MARK: Requests

  /// libmicrohttpd's access handler: called with the headers (`*context` still nil), with
  /// each piece of the body, and once the request is whole, then again after a resume.
  private func access(
    _ connection: OpaquePointer, url: UnsafePointer<CChar>, method: UnsafePointer<CChar>,
    upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
    context: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  ) -> MHD_Result {
    guard let opaque = context.pointee else {
      let exchange = HTTPExchange(
        connection: connection, listener: self, method: String(cString: method),
        path: String(cString: url), query: Self.query(of: connection),
        headers: Self.headers(of: connection))
      context.pointee = Unmanaged.passRetained(exchange).toOpaque()
      let declared = exchange.headers["content-length"].flatMap { Int($0) }
      if let declared, declared > configuration.maxBodySize {
        // Before a byte of the body is read: libmicrohttpd skips it and closes.
        exchange.phase = .answered
        return queue(.tooLarge(limit: configuration.maxBodySize), for: exchange)
      }
      if let declared, declared > 0 { exchange.body.reserveCapacity(declared) }
      return .YES
    }
    let exchange = Unmanaged<HTTPExchange>.fromOpaque(opaque).takeUnretainedValue()
    if uploadSize.pointee > 0, let upload {
      let count = uploadSize.pointee
      guard count <= configuration.maxBodySize - exchange.body.count else {
        exchange.phase = .answered
        refuseOversizedBody(of: exchange)
        return .NO
      }
      exchange.body.append(contentsOf: UnsafeRawBufferPointer(start: upload, count: count))
      uploadSize.pointee = 0
      return .YES
    }
    switch exchange.phase {
    case .receiving:
      return hand(exchange)
    case .handling:
      guard let reply = exchange.takeReply() else {
        // Woken with no answer: the listener is stopping.
        return .NO
      }
      exchange.phase = .answered
      return queue(reply, for: exchange)
    case .answered:
      return .NO
    }
  }

  /// Puts the connection aside and gives the request to the handler, on the handler
  /// pool.
  private func hand(_ exchange: HTTPExchange) -> MHD_Result {
    let request = exchange.request
    exchange.body = []
    exchange.phase = .handling
    let handed = gate.withLock { gate in
      guard !gate.stopping else { return false }
      MHD_suspend_connection(exchange.connection)
      gate.aside[ObjectIdentifier(exchange)] = Aside(
        exchange: exchange, stream: nil, watchedSocket: nil)
      return true
    }
    guard handed else { return .NO }
    let handler = configuration.handler
    // The pool stops only after every listener has (and so after this callback), so it
    // takes the job.
    configuration.handlerPool.run { [self] in deliver(handler(request), to: exchange) }
    return .YES
  }

  /// Takes the handler's answer back to the network thread (from the handler's thread).
  private func deliver(_ response: HTTPResponse, to exchange: HTTPExchange) {
    exchange.setReply(response)
    if !resume(exchange), case .stream(let stream) = response.body {
      // The listener stopped first: the stream will never be sent.
      stream.end(.serverStopped)
    }
  }

  /// Wakes a connection put aside, if it still is; false when it was not.
  @discardableResult
  func resume(_ exchange: HTTPExchange) -> Bool {
    gate.withLock { gate in
      guard gate.aside.removeValue(forKey: ObjectIdentifier(exchange)) != nil else {
        return false
      }
      MHD_resume_connection(exchange.connection)
      return true
    }
  }

  /// Queues `response` on the exchange's connection (on the network thread).
  private func queue(_ response: HTTPResponse, for exchange: HTTPExchange) -> MHD_Result {
    let made: OpaquePointer?
    switch response.body {
    case .bytes(let bytes):
      made = bytes.withUnsafeBytes {
        MHD_create_response_from_buffer(
          $0.count, UnsafeMutableRawPointer(mutating: $0.baseAddress), .RESPMEM_MUST_COPY)
      }
    case .webSocket(let handler):
      exchange.webSocket = handler
      made = MHD_create_response_for_upgrade(
        Self.upgradeCallback, Unmanaged.passUnretained(self).toOpaque())
    case .stream(let stream):
      // The content reader's context: the exchange, retained until libmicrohttpd frees
      // the response (`contentReaderFreeCallback`).
      let readerContext = Unmanaged.passRetained(exchange)
      made = MHD_create_response_from_callback(
        haul_mhd_size_unknown(), Self.streamBlockSize, Self.contentReaderCallback,
        readerContext.toOpaque(), Self.contentReaderFreeCallback)
      guard made != nil else {
        readerContext.release()
        stream.end(.serverStopped)
        return .NO
      }
      exchange.stream = stream
      stream.attach(
        HTTPStream.Attachment(
          socket: haul_mhd_connection_fd(exchange.connection),
          wake: { [self] in resume(exchange) }))
    }
    guard let made else { return .NO }
    defer { MHD_destroy_response(made) }
    for (name, value) in response.headers {
      let lowered = name.lowercased()
      guard lowered != "content-length", lowered != "transfer-encoding" else { continue }
      // A field libmicrohttpd refuses (a line break in it) is left out.
      _ = MHD_add_response_header(made, name, value)
    }
    return MHD_queue_response(exchange.connection, UInt32(clamping: response.status), made)
  }

  /// Answers a chunked body that passed `maxBodySize` with the server's `413`, written
  /// straight to the socket; the caller then makes libmicrohttpd close the connection.
  /// libmicrohttpd 0.9.75 queues a response only before the body is read or after it has
  /// ended (`MHD_queue_response` checks the connection's state), and a body without
  /// `Content-Length` can only be found too large in between.
  private func refuseOversizedBody(of exchange: HTTPExchange) {
    let response = HTTPResponse.tooLarge(limit: configuration.maxBodySize)
    guard case .bytes(let body) = response.body else { return }
    var head = "HTTP/1.1 413 Content Too Large\r\n"
    for (name, value) in response.headers { head += "\(name): \(value)\r\n" }
    head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
    let message = Array(head.utf8) + body
    let socket = haul_mhd_connection_fd(exchange.connection)
    // The socket's send buffer is empty (nothing was answered yet): one send takes it all.
    _ = message.withUnsafeBytes {
      send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
    }
    _ = shutdown(socket, Int32(SHUT_WR))
  }

  // MARK: Streams

  /// A stream's content reader (on the network thread): hands over what is held, or puts
  /// the connection aside until the writer wakes it.
  private func readStream(
    of exchange: HTTPExchange, into destination: UnsafeMutableRawBufferPointer
  ) -> Int {
    guard let stream = exchange.stream else { return haul_mhd_end_with_error() }
    let result = gate.withLock { gate -> Int in
      switch stream.read(into: destination) {
      case .bytes(let count): return count
      case .finished: return haul_mhd_end_of_stream()
      case .broken: return haul_mhd_end_with_error()
      case .empty:
        guard !gate.stopping else {
          stream.end(.serverStopped)
          return haul_mhd_end_with_error()
        }
        // Returning 0 with the connection suspended is how libmicrohttpd waits for data
        // without polling (see `MHD_ContentReaderCallback`).
        MHD_suspend_connection(exchange.connection)
        gate.aside[ObjectIdentifier(exchange)] = Aside(
          exchange: exchange, stream: stream,
          watchedSocket: haul_mhd_connection_fd(exchange.connection))
        return 0
      }
    }
    if result == 0 { watcher.refresh() }
    return result
  }

  /// The sockets of the streams put aside, for the watcher.
  private func watchedSockets() -> [Int32] {
    gate.withLock { $0.aside.values.compactMap(\.watchedSocket) }
  }

  /// The client of a stream put aside hung up (from the watcher): the stream ends, and the
  /// connection is woken for libmicrohttpd to close.
  private func hangUp(_ socket: Int32) {
    gate.withLock { gate in
      guard let (key, aside) = gate.aside.first(where: { $0.value.watchedSocket == socket })
      else { return }
      gate.aside[key] = nil
      aside.stream?.end(.clientGone)
      MHD_resume_connection(aside.exchange.connection)
    }
  }

  // MARK: WebSocket

  /// Takes over a connection libmicrohttpd has just upgraded (on the network thread): its
  /// socket goes to the WebSocket loop, with the bytes libmicrohttpd read past the header.
  private func upgraded(
    _ exchange: HTTPExchange, socket: Int32, upgrade: OpaquePointer, extra: UnsafeRawBufferPointer
  ) {
    guard let handler = exchange.webSocket else {
      _ = haul_mhd_upgrade_close(upgrade)
      return
    }
    let loop = webSockets.withLock { webSockets -> WebSocketLoop? in
      switch webSockets {
      case .running(let loop): return loop
      case .stopped: return nil
      case .none:
        guard let loop = try? WebSocketLoop() else { return nil }
        webSockets = .running(loop)
        return loop
      }
    }
    guard let loop else {
      _ = haul_mhd_upgrade_close(upgrade)
      return
    }
    let connection = WebSocketConnection(
      socket: socket, upgrade: upgrade, handler: handler, pool: configuration.handlerPool,
      wake: { [loop] in loop.wake() })
    connection.feed(extra)
    handler.opened(connection)
    if !loop.add(connection) { connection.finish() }
  }

  // MARK: Reading what libmicrohttpd parsed

  /// The header fields, names lower-cased, repeated ones joined with ", ".
  private static func headers(of connection: OpaquePointer) -> [String: String] {
    var headers: [String: String] = [:]
    for (name, value) in values(of: connection, kind: .HEADER_KIND) {
      let name = name.lowercased()
      if let earlier = headers[name] {
        headers[name] = earlier + ", " + value
      } else {
        headers[name] = value
      }
    }
    return headers
  }

  /// The query's parameters, decoded by libmicrohttpd; a repeated name keeps its first
  /// value.
  private static func query(of connection: OpaquePointer) -> [String: String] {
    var query: [String: String] = [:]
    for (name, value) in values(of: connection, kind: .GET_ARGUMENT_KIND)
    where query[name] == nil {
      query[name] = value
    }
    return query
  }

  private static func values(
    of connection: OpaquePointer, kind: MHD_ValueKind
  ) -> [(String, String)] {
    var pairs: [(String, String)] = []
    withUnsafeMutablePointer(to: &pairs) { pairs in
      _ = MHD_get_connection_values_n(connection, kind, collectCallback, pairs)
    }
    return pairs
  }

  // MARK: libmicrohttpd's callbacks

  /// `MHD_AccessHandlerCallback`. `cls` is the listener (see "Lifetime"); `*req_cls` the
  /// request's exchange.
  private static let accessCallback: MHD_AccessHandlerCallback = {
    cls, connection, url, method, _, upload, uploadSize, context in
    let listener = Unmanaged<MHDListener>.fromOpaque(cls!).takeUnretainedValue()
    return listener.access(
      connection!, url: url!, method: method!, upload: upload, uploadSize: uploadSize!,
      context: context!)
  }

  /// `MHD_RequestCompletedCallback`: the request is over (answered, failed, timed out, or
  /// closed by the stop). Releases the exchange and ends its stream, if any, before
  /// libmicrohttpd closes or reuses the socket.
  private static let completedCallback: MHD_RequestCompletedCallback = {
    _, _, context, termination in
    guard let context, let opaque = context.pointee else { return }
    context.pointee = nil
    let exchange = Unmanaged<HTTPExchange>.fromOpaque(opaque).takeRetainedValue()
    exchange.stream?.detach(
      termination == .REQUEST_TERMINATED_DAEMON_SHUTDOWN ? .serverStopped : .clientGone)
  }

  /// `MHD_UpgradeHandler`: the `101` answer was sent. `cls` is the listener (see "Lifetime");
  /// `req_cls` the request's exchange, still retained (its completion comes later).
  private static let upgradeCallback: MHD_UpgradeHandler = {
    cls, _, context, extra, extraSize, socket, upgrade in
    let listener = Unmanaged<MHDListener>.fromOpaque(cls!).takeUnretainedValue()
    let exchange = Unmanaged<HTTPExchange>.fromOpaque(context!).takeUnretainedValue()
    listener.upgraded(
      exchange, socket: socket, upgrade: upgrade!,
      extra: UnsafeRawBufferPointer(start: extra, count: extraSize))
  }

  /// `MHD_ContentReaderCallback` of a stream response; `cls` is the exchange.
  private static let contentReaderCallback: MHD_ContentReaderCallback = {
    cls, _, buffer, max in
    let exchange = Unmanaged<HTTPExchange>.fromOpaque(cls!).takeUnretainedValue()
    return exchange.listener.readStream(
      of: exchange, into: UnsafeMutableRawBufferPointer(start: buffer, count: max))
  }

  /// `MHD_ContentReaderFreeCallback`: the stream response is freed; releases the exchange
  /// it retained.
  private static let contentReaderFreeCallback: MHD_ContentReaderFreeCallback = { cls in
    Unmanaged<HTTPExchange>.fromOpaque(cls!).release()
  }

  /// `MHD_KeyValueIteratorN` collecting into the `[(String, String)]` that `cls` points
  /// to, for the length of one `MHD_get_connection_values_n` call.
  private static let collectCallback: MHD_KeyValueIteratorN = {
    cls, _, key, keySize, value, valueSize in
    let pairs = cls!.assumingMemoryBound(to: [(String, String)].self)
    let name = String(decoding: UnsafeRawBufferPointer(start: key, count: keySize), as: UTF8.self)
    let text = value.map {
      String(decoding: UnsafeRawBufferPointer(start: $0, count: valueSize), as: UTF8.self)
    }
    pairs.pointee.append((name, text ?? ""))
    return .YES
  }
}
