import Foundation

/// aria2's JSON-RPC over HTTP and WebSocket, at `/jsonrpc`: a POST carries a message in its
/// body, a GET carries one call in its query as aria2 takes it (`method`, `id`, and
/// `params`, a JSON list encoded in base64), and a GET that upgrades to WebSocket carries a
/// message in each text frame, answered in a text frame, and receives aria2's notifications
/// (`Aria2Notifier`). The listener's `Host` and `Origin` rules are the native API's
/// (`AccessGuard`), checked on the upgrade request as on any other, so a page from a foreign
/// origin cannot open the socket; the token is each call's first parameter, checked by
/// `Aria2RPC`, over WebSocket as over POST (aria2's clients open the socket without one).
///
/// A browser page from an origin `--allow-origin` names (AriaNg or webui-aria2 served
/// elsewhere) gets the CORS answers it needs, its preflight `OPTIONS` included. JSONP
/// (`jsoncallback`), which aria2 offers to GET callers, is not: a `<script>` request
/// carries no `Origin`, so it would pass around the origin rule.
public struct Aria2Endpoint: Sendable {
  let rpc: Aria2RPC
  let notifier = Aria2Notifier()
  let webSocket: WebSocketHandler

  /// The endpoint of `rpc`, which starts following its daemon's events for the
  /// notifications.
  ///
  /// - Parameters:
  ///   - maxMessageSize: the largest WebSocket message taken, as aria2's
  ///     `--rpc-max-request-size` (2 MiB by default there too).
  ///   - outgoingLimit: how far a WebSocket client may fall behind in reading before it is
  ///     cut off.
  public init(
    rpc: Aria2RPC, maxMessageSize: Int = 2 << 20, outgoingLimit: Int = 4 << 20
  ) {
    self.rpc = rpc
    let notifier = notifier
    webSocket = WebSocketHandler(
      maxMessageSize: maxMessageSize, outgoingLimit: outgoingLimit,
      opened: { notifier.add($0) },
      message: { _, message in rpc.answer(message).body },
      closed: { notifier.remove($0) })
    rpc.daemon.observeEvents { notifier.publish($0) }
  }

  /// Answers `request`.
  public func respond(_ request: HTTPRequest) -> HTTPResponse {
    if let refusal = rpc.access.placeRefusal(request) {
      return Self.json(403, Self.errorBody(Aria2Error(refusal.message)))
    }
    guard request.path == "/jsonrpc" else {
      return HTTPResponse(status: 404)
    }
    if WebSocketHandshake.isUpgrade(request) {
      return WebSocketHandshake.response(to: request, handler: webSocket)
    }
    var response: HTTPResponse
    switch request.method {
    case "POST":
      response = Self.response(rpc.answer(request.body))
    case "GET":
      response = Self.response(get(request))
    case "OPTIONS":
      response = HTTPResponse(
        status: 200,
        headers: [
          "Access-Control-Allow-Methods": "POST, GET, OPTIONS",
          "Access-Control-Allow-Headers": request.header("Access-Control-Request-Headers")
            ?? "Content-Type",
          "Access-Control-Max-Age": "1728000",
        ])
    default:
      return HTTPResponse(status: 405, headers: ["Allow": "POST, GET, OPTIONS"])
    }
    if let origin = request.header("Origin") {
      // `placeRefusal` let it through: it is the listener's own or an allowed one.
      response.headers["Access-Control-Allow-Origin"] = origin
      response.headers["Vary"] = "Origin"
    }
    return response
  }

  /// The call a GET's query holds.
  private func get(_ request: HTTPRequest) -> Aria2RPC.Answer {
    var call: [String: Any] = ["jsonrpc": "2.0"]
    if let method = request.query["method"] { call["method"] = method }
    if let id = request.query["id"] { call["id"] = id }
    if let encoded = request.query["params"] {
      guard let data = Self.base64(encoded),
        let params = try? JSONSerialization.jsonObject(with: data)
      else {
        return Aria2RPC.Answer(
          body: Aria2RPC.encode(Aria2RPC.response(id: call["id"] ?? NSNull(), .failure(.parse))),
          outcome: .parseError)
      }
      call["params"] = params
    }
    return rpc.answer(message: call)
  }

  /// Base64 as aria2 reads a query's `params`: padding optional, and `+` that a query
  /// decoder turned into a space taken back.
  static func base64(_ text: String) -> Data? {
    var text = text.replacingOccurrences(of: " ", with: "+")
    while text.utf8.count % 4 != 0 { text += "=" }
    return Data(base64Encoded: text)
  }

  /// aria2's statuses: 200 for a result or a batch, 400 for one call's error, 500 for a
  /// body that is not JSON.
  static func response(_ answer: Aria2RPC.Answer) -> HTTPResponse {
    let status =
      switch answer.outcome {
      case .result: 200
      case .error: 400
      case .parseError: 500
      }
    return HTTPResponse.json(status: status, answer.body)
  }

  static func json(_ status: Int, _ body: [UInt8]) -> HTTPResponse {
    HTTPResponse.json(status: status, body)
  }

  static func errorBody(_ error: Aria2Error) -> [UInt8] {
    Aria2RPC.encode(Aria2RPC.response(id: NSNull(), .failure(error)))
  }
}
