import Foundation
import Synchronization

/// aria2's JSON-RPC interface over the daemon (docs/service.md, "aria2 compatibility"): each
/// aria2 download is a haul job of one entry, its GID the job's id, and each method is
/// carried out with the daemon's own calls, so aria2's clients (aria2p, AriaNg,
/// webui-aria2) drive haul unchanged.
///
/// It takes a JSON-RPC message (a call, or a batch of calls) as bytes and returns the
/// answer's bytes: it knows no transport. `Aria2Endpoint` carries it over HTTP; a WebSocket
/// would hand it its text frames the same way.
///
/// Threading: every method may be called from any thread; each call makes a few short
/// daemon calls. The options aria2 clients give that haul only reports back are kept in
/// memory (the rest is in the daemon's journal), so they are gone after a restart.
public final class Aria2RPC: Sendable {
  /// What a method does with its parameters (the `token:` one taken off).
  typealias Method = @Sendable (Aria2RPC, Aria2Params) throws(Aria2Error) -> Any

  /// What is kept beside the journal, under one lock.
  struct State: Sendable {
    /// The downloads' sources and files, read once from their manifests (which never change).
    var downloads: [String: Aria2Download] = [:]
    /// The aria2 options each download was given (or changed to).
    var options: [String: Aria2Options] = [:]
    /// The options `changeGlobalOption` set: the defaults of later `addUri` calls.
    var global = Aria2Options()
  }

  let daemon: Daemon
  let access: AccessGuard
  /// Called by `shutdown` and `forceShutdown`: the serve command stops as on SIGTERM.
  let onShutdown: @Sendable () -> Void
  /// `getSessionInfo`'s id: 40 hex digits, new at each start, as aria2's.
  let sessionID: String
  let state = Mutex(State())

  public init(daemon: Daemon, access: AccessGuard, onShutdown: @escaping @Sendable () -> Void) {
    self.daemon = daemon
    self.access = access
    self.onShutdown = onShutdown
    var generator = SystemRandomNumberGenerator()
    sessionID =
      (0..<5).map { _ in
        let hex = String(generator.next() as UInt64, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
      }.joined().prefix(40).description
  }

  /// The answer to one message.
  public struct Answer: Sendable, Equatable {
    /// The JSON text of the answer.
    public var body: [UInt8]
    /// How it went, for the transport's status: aria2 answers HTTP 200 for a result or a
    /// batch, 400 for one call's error, 500 for a body that is not JSON.
    public var outcome: Outcome

    public enum Outcome: Sendable, Equatable {
      case result
      case error
      case parseError
    }
  }

  /// Answers a JSON-RPC message: one call object, or a batch (a JSON array) answered as a
  /// batch.
  public func answer(_ body: [UInt8]) -> Answer {
    guard let message = try? JSONSerialization.jsonObject(with: Data(body), options: []) else {
      return Answer(
        body: Self.encode(Self.response(id: NSNull(), .failure(.parse))), outcome: .parseError)
    }
    return answer(message: message)
  }

  /// Answers a message already parsed (the HTTP GET form builds one from its query).
  func answer(message: Any) -> Answer {
    if let batch = message as? [Any] {
      return Answer(body: Self.encode(batch.map { answer(call: $0) }), outcome: .result)
    }
    let response = answer(call: message)
    return Answer(
      body: Self.encode(response), outcome: response["error"] == nil ? .result : .error)
  }

  /// The response object to one call object. aria2 answers a call without an `id` as an
  /// invalid request (rather than as a notification that needs no answer), and so does haul.
  private func answer(call: Any) -> [String: Any] {
    guard let object = call as? [String: Any], let method = object["method"] as? String,
      let id = object["id"]
    else {
      return Self.response(
        id: (call as? [String: Any])?["id"] ?? NSNull(), .failure(.invalidRequest))
    }
    let params: [Any]
    switch object["params"] {
    case nil, is NSNull: params = []
    case let list as [Any]: params = list
    default: return Self.response(id: id, .failure(.invalidRequest))
    }
    return Self.response(id: id, self.call(method, params))
  }

  /// Carries out method `name`: its token checked (but for the `system.` methods, which
  /// need none), then its parameters read and the daemon called.
  func call(_ name: String, _ params: [Any]) -> Result<Any, Aria2Error> {
    guard let method = Self.methods[name] else { return .failure(.noSuchMethod(name)) }
    var parameters = Aria2Params(params)
    if !Self.open.contains(name) {
      guard let token = parameters.takeToken(), access.accepts(token: token) else {
        return .failure(.unauthorized)
      }
    }
    do throws(Aria2Error) {
      return .success(try method(self, parameters))
    } catch {
      return .failure(error)
    }
  }

  /// The methods that need no token, as in aria2: they tell nothing of the downloads
  /// (`system.multicall` checks each call it makes).
  static let open: Set<String> = [
    "system.multicall", "system.listMethods", "system.listNotifications",
  ]

  /// Every method, in aria2's order (`system.listMethods`).
  static let methodNames = [
    "aria2.addUri", "aria2.addTorrent", "aria2.getPeers", "aria2.addMetalink", "aria2.remove",
    "aria2.pause", "aria2.forcePause", "aria2.pauseAll", "aria2.forcePauseAll",
    "aria2.unpause", "aria2.unpauseAll", "aria2.forceRemove", "aria2.changePosition",
    "aria2.tellStatus", "aria2.getUris", "aria2.getFiles", "aria2.getServers",
    "aria2.tellActive", "aria2.tellWaiting", "aria2.tellStopped", "aria2.getOption",
    "aria2.changeUri", "aria2.changeOption", "aria2.getGlobalOption",
    "aria2.changeGlobalOption", "aria2.purgeDownloadResult", "aria2.removeDownloadResult",
    "aria2.getVersion", "aria2.getSessionInfo", "aria2.shutdown", "aria2.forceShutdown",
    "aria2.getGlobalStat", "aria2.saveSession", "system.multicall", "system.listMethods",
    "system.listNotifications",
  ]

  /// The notifications aria2 sends over WebSocket (`system.listNotifications`).
  static let notificationNames = [
    "aria2.onDownloadStart", "aria2.onDownloadPause", "aria2.onDownloadStop",
    "aria2.onDownloadComplete", "aria2.onDownloadError", "aria2.onBtDownloadComplete",
  ]

  static let methods: [String: Method] = [
    "aria2.addUri": { (rpc, params) throws(Aria2Error) in try rpc.addUri(params) },
    "aria2.addTorrent": { _, _ throws(Aria2Error) in throw .unsupported("BitTorrent") },
    "aria2.addMetalink": { _, _ throws(Aria2Error) in throw .unsupported("Metalink") },
    "aria2.getPeers": { _, _ throws(Aria2Error) in throw .unsupported("BitTorrent") },
    "aria2.changeUri": { _, _ throws(Aria2Error) in
      throw .unsupported("Changing a download's URIs")
    },
    "aria2.remove": { (rpc, params) throws(Aria2Error) in try rpc.remove(params) },
    "aria2.forceRemove": { (rpc, params) throws(Aria2Error) in try rpc.remove(params) },
    "aria2.pause": { (rpc, params) throws(Aria2Error) in try rpc.pause(params) },
    "aria2.forcePause": { (rpc, params) throws(Aria2Error) in try rpc.pause(params) },
    "aria2.pauseAll": { rpc, _ in rpc.pauseAll() },
    "aria2.forcePauseAll": { rpc, _ in rpc.pauseAll() },
    "aria2.unpause": { (rpc, params) throws(Aria2Error) in try rpc.unpause(params) },
    "aria2.unpauseAll": { rpc, _ in rpc.unpauseAll() },
    "aria2.changePosition": { (rpc, params) throws(Aria2Error) in try rpc.changePosition(params) },
    "aria2.tellStatus": { (rpc, params) throws(Aria2Error) in try rpc.tellStatus(params) },
    "aria2.getUris": { (rpc, params) throws(Aria2Error) in try rpc.getUris(params) },
    "aria2.getFiles": { (rpc, params) throws(Aria2Error) in try rpc.getFiles(params) },
    "aria2.getServers": { (rpc, params) throws(Aria2Error) in try rpc.getServers(params) },
    "aria2.tellActive": { (rpc, params) throws(Aria2Error) in try rpc.tellActive(params) },
    "aria2.tellWaiting": { (rpc, params) throws(Aria2Error) in try rpc.tellWaiting(params) },
    "aria2.tellStopped": { (rpc, params) throws(Aria2Error) in try rpc.tellStopped(params) },
    "aria2.getOption": { (rpc, params) throws(Aria2Error) in try rpc.getOption(params) },
    "aria2.changeOption": { (rpc, params) throws(Aria2Error) in try rpc.changeOption(params) },
    "aria2.getGlobalOption": { rpc, _ in rpc.getGlobalOption() },
    "aria2.changeGlobalOption": { (rpc, params) throws(Aria2Error) in
      try rpc.changeGlobalOption(params)
    },
    "aria2.purgeDownloadResult": { rpc, _ in rpc.purgeDownloadResult() },
    "aria2.removeDownloadResult": { (rpc, params) throws(Aria2Error) in
      try rpc.removeDownloadResult(params)
    },
    "aria2.getVersion": { rpc, _ in rpc.getVersion() },
    "aria2.getSessionInfo": { rpc, _ in ["sessionId": rpc.sessionID] },
    "aria2.saveSession": { _, _ in "OK" },
    "aria2.shutdown": { rpc, _ in rpc.shutdown() },
    "aria2.forceShutdown": { rpc, _ in rpc.shutdown() },
    "aria2.getGlobalStat": { rpc, _ in rpc.getGlobalStat() },
    "system.multicall": { (rpc, params) throws(Aria2Error) in try rpc.multicall(params) },
    "system.listMethods": { _, _ in methodNames },
    "system.listNotifications": { _, _ in notificationNames },
  ]

  static func response(id: Any, _ result: Result<Any, Aria2Error>) -> [String: Any] {
    switch result {
    case .success(let value): ["id": id, "jsonrpc": "2.0", "result": value]
    case .failure(let error): ["id": id, "jsonrpc": "2.0", "error": error.object]
    }
  }

  static func encode(_ object: Any) -> [UInt8] { Array(JSONText.encode(object).utf8) }
}
