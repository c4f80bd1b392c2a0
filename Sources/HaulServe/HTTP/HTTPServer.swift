import Foundation
import Synchronization

/// The daemon's HTTP/1.1 server, over GNU libmicrohttpd: the control socket and, with
/// `--listen`, a loopback TCP listener, each answering through one handler.
///
/// libmicrohttpd parses; the server reads what it parsed into an `HTTPRequest`, reads the
/// body whole (refusing one over `maxBodySize` with `413` before reading it), and calls the
/// handler. Each listener runs one libmicrohttpd thread on epoll that only moves bytes; the
/// handler runs on the server's own threads (`handlerThreads` of them), never on that
/// thread nor on Swift concurrency's cooperative pool, so it may block briefly (an SQLite
/// commit) without holding up other connections or streams (see `MHDListener` for the
/// whole choice).
///
/// Threading: every method may be called from any thread; `stop()` may be called from the
/// handler too (it does not wait for handlers).
public final class HTTPServer: Sendable {
  private struct State {
    var listeners: [MHDListener] = []
    var stopped = false
  }

  private let configuration: MHDListener.Configuration
  private let state = Mutex(State())

  /// A server with no listener yet.
  ///
  /// - Parameters:
  ///   - maxBodySize: the largest request body read; a larger one is answered `413`
  ///     (`too_large`) without being read or given memory.
  ///   - idleTimeout: how long a connection may send and take nothing before it is
  ///     closed, rounded up to whole seconds (`MHD_OPTION_CONNECTION_TIMEOUT`); `.zero`
  ///     for never. A connection waiting on its handler or on its stream's writer is not
  ///     idle.
  ///   - handlerThreads: how many requests are handled at once; more wait their turn.
  ///     The default serves the CLI, a few event readers and scripts at once, with room
  ///     for handlers that block.
  ///   - handler: answers each request, on one of the server's handler threads.
  public init(
    maxBodySize: Int, idleTimeout: Duration = .seconds(30), handlerThreads: Int = 8,
    handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse
  ) {
    precondition(maxBodySize >= 0, "maxBodySize must not be negative")
    let (seconds, attoseconds) = idleTimeout.components
    let rounded = max(0, seconds + (attoseconds > 0 ? 1 : 0))
    configuration = MHDListener.Configuration(
      maxBodySize: maxBodySize, idleTimeoutSeconds: UInt32(clamping: rounded),
      handler: handler,
      handlerPool: HTTPHandlerPool(threads: handlerThreads))
  }

  deinit {
    assert(state.withLock { $0.listeners.isEmpty }, "an HTTPServer was dropped without stop()")
  }

  /// Listens on a Unix socket at `path`, made with mode 0600. A socket file left by a
  /// daemon that died is removed first; a path where a server answers, or that is not a
  /// socket, is refused (`addressInUse`). The file is removed by `stop()`.
  public func listen(unixSocket path: String) throws(HTTPServerError) {
    try checkRunning()
    try add(MHDListener.start(on: HTTPListenSocket.unix(path: path), configuration: configuration))
  }

  /// Listens on TCP at `host`, an IPv4 or IPv6 literal, and `port`.
  ///
  /// - Returns: the port bound, which the system picks for port 0.
  @discardableResult
  public func listen(host: String, port: Int) throws(HTTPServerError) -> Int {
    try checkRunning()
    let socket = try HTTPListenSocket.tcp(host: host, port: port)
    let listener = try MHDListener.start(on: socket, configuration: configuration)
    try add(listener)
    guard case .tcp(_, let bound) = listener.kind else { return port }
    return bound
  }

  /// Closes every listener and every connection, open streams included (each ends with
  /// `serverStopped`, unless it had ended), and returns once no libmicrohttpd callback
  /// runs. A handler still running when it is called goes on to its end; its
  /// answer is dropped. Stopping twice does nothing.
  public func stop() {
    let listeners = state.withLock { state in
      state.stopped = true
      return state.listeners.take()
    }
    for listener in listeners { listener.stop() }
    configuration.handlerPool.stop()
  }

  private func checkRunning() throws(HTTPServerError) {
    guard !state.withLock({ $0.stopped }) else {
      throw HTTPServerError(.stopped, "the server was stopped")
    }
  }

  private func add(_ listener: MHDListener) throws(HTTPServerError) {
    let added = state.withLock { state in
      guard !state.stopped else { return false }
      state.listeners.append(listener)
      return true
    }
    guard added else {
      listener.stop()
      throw HTTPServerError(.stopped, "the server was stopped")
    }
  }
}

extension Array {
  /// Takes the elements out, leaving the array empty.
  fileprivate mutating func take() -> [Element] {
    defer { self = [] }
    return self
  }
}
