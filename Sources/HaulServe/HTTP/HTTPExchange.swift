import HaulCore
import Synchronization

/// One request on one connection, from libmicrohttpd's first call of the access handler to
/// its completion callback: the request as it is read, then the handler's answer on its way
/// back to the network thread, then the stream being sent, if the answer is one.
///
/// libmicrohttpd holds it as the request's context pointer (`*req_cls`), retained from the
/// first call (`MHDListener.access`) until `MHDListener.requestCompleted` releases it; a
/// stream response retains it again as its content reader's context.
///
/// Made on the listener's network thread, which owns `phase`, `body`, `stream` and
/// `webSocket` (`@LoopBound`, checked in debug builds); `reply` crosses from the handler's
/// thread behind its lock, and `connection` is only used on the network thread or, to resume
/// it, under the listener's lock while the connection is put aside.
// unchecked: the network thread owns its state; `reply` and `connection` cross under locks.
final class HTTPExchange: @unchecked Sendable {
  enum Phase {
    /// Headers in; the body, if any, is being read into `body`.
    case receiving
    /// The handler has the request; the connection is put aside until `reply` is set.
    case handling
    /// A response is queued.
    case answered
  }

  let connection: OpaquePointer
  let listener: MHDListener
  let method: String
  let path: String
  let query: [String: String]
  let headers: [String: String]
  @LoopBound var phase = Phase.receiving
  @LoopBound var body: [UInt8] = []
  /// The stream being sent, once a stream response is queued.
  @LoopBound var stream: HTTPStream?
  /// What serves the connection once upgraded, once a `101` answer is queued.
  @LoopBound var webSocket: WebSocketHandler?
  private let reply = Mutex<HTTPResponse?>(nil)

  init(
    connection: OpaquePointer, listener: MHDListener, method: String, path: String,
    query: [String: String], headers: [String: String]
  ) {
    self.connection = connection
    self.listener = listener
    self.method = method
    self.path = path
    self.query = query
    self.headers = headers
  }

  /// The request as the handler gets it, body included.
  var request: HTTPRequest {
    HTTPRequest(
      method: method, path: path, query: query, headers: headers, body: body,
      listener: listener.kind)
  }

  /// Hands the handler's answer over (from the handler's thread).
  func setReply(_ response: HTTPResponse) { reply.withLock { $0 = response } }

  /// Takes the handler's answer, if it has come (on the network thread).
  func takeReply() -> HTTPResponse? { reply.withLock { $0.take() } }
}
