import Foundation

/// The native API (docs/service.md): each request, once `AccessGuard` let it through, is
/// read, handed to the daemon, and answered with JSON. Runs on the HTTP server's threads;
/// every daemon call it makes is short.
public struct APIRouter: Sendable {
  let daemon: Daemon
  let access: AccessGuard
  /// Called once by `POST /v1/shutdown`: the serve command stops the daemon as SIGTERM does.
  let onShutdown: @Sendable () -> Void

  public init(daemon: Daemon, access: AccessGuard, onShutdown: @escaping @Sendable () -> Void) {
    self.daemon = daemon
    self.access = access
    self.onShutdown = onShutdown
  }

  /// Answers `request`.
  public func respond(_ request: HTTPRequest) -> HTTPResponse {
    if let refusal = access.refusal(request) { return Self.error(refusal) }
    do throws(ServiceError) {
      return try route(request)
    } catch {
      return Self.error(error)
    }
  }

  /// What a request's path names.
  enum Route: Equatable {
    /// `/`: haul's own page (`PageRoute`).
    case page
    case jobs
    case job(String)
    /// `/v1/jobs/ID/NAME`: `entries`, `report`, `pause`, `resume`, `cancel`.
    case jobPart(String, String)
    case stats
    case events
    case shutdown
    case unknown

    init(_ path: String) {
      if path == "/" {
        self = .page
        return
      }
      let parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
      guard parts.first == "v1" else {
        self = .unknown
        return
      }
      switch parts.count {
      case 2 where parts[1] == "jobs": self = .jobs
      case 2 where parts[1] == "stats": self = .stats
      case 2 where parts[1] == "events": self = .events
      case 2 where parts[1] == "shutdown": self = .shutdown
      case 3 where parts[1] == "jobs": self = .job(parts[2])
      case 4 where parts[1] == "jobs": self = .jobPart(parts[2], parts[3])
      default: self = .unknown
      }
    }
  }

  private func route(_ request: HTTPRequest) throws(ServiceError) -> HTTPResponse {
    switch (request.method, Route(request.path)) {
    case ("GET", .page):
      return PageRoute.response()
    case ("POST", .jobs):
      return Self.json(201, try daemon.submit(submission(request)))
    case ("GET", .jobs):
      return Self.json(200, ["jobs": daemon.listJobs()])
    case ("GET", .job(let id)):
      return Self.json(200, try daemon.job(id))
    case ("GET", .jobPart(let id, "entries")):
      let offset = try Self.number(request.query["offset"], "offset", default: 0)
      let limit = try Self.number(request.query["limit"], "limit", default: 1000)
      var status: EntryRecord.Status?
      if let text = request.query["state"] {
        guard let value = EntryRecord.Status(rawValue: text) else {
          throw ServiceError(.usage, "state must be ok, skipped or failed")
        }
        status = value
      }
      let texts = try daemon.entries(id, status: status, offset: offset, limit: min(limit, 10_000))
      let body = "{\"entries\": [" + texts.joined(separator: ",\n") + "]}\n"
      return HTTPResponse.json(Array(body.utf8))
    case ("GET", .jobPart(let id, "report")):
      var body: [UInt8] = []
      try daemon.report(id) { piece in
        body += Array(piece.utf8)
        return true
      }
      return HTTPResponse.json(body)
    case ("POST", .jobPart(let id, "pause")):
      return Self.json(200, try daemon.pause(id))
    case ("POST", .jobPart(let id, "resume")):
      return Self.json(200, try daemon.resume(id))
    case ("POST", .jobPart(let id, "cancel")):
      return Self.json(200, try daemon.cancel(id))
    case ("PATCH", .job(let id)):
      let body = try Self.object(request.body)
      var position: Int?
      if let value = body["position"] {
        guard let number = value as? Int else {
          throw ServiceError(.usage, "\"position\" must be a whole number")
        }
        position = number
      }
      let options = try body["options"].map { (json) throws(ServiceError) in
        try JobOptions(json: json)
      }
      return Self.json(200, try daemon.modify(id, position: position, options: options))
    case ("DELETE", .job(let id)):
      try daemon.forget(id)
      return HTTPResponse(status: 204)
    case ("GET", .stats):
      return Self.json(200, daemon.stats())
    case ("GET", .events):
      let since = request.headers["last-event-id"] ?? request.query["since"]
      var after: Int64?
      if let since {
        guard let value = Int64(since.trimmingCharacters(in: .whitespaces)), value >= 0 else {
          throw ServiceError(.usage, "Last-Event-ID must be an event id")
        }
        after = value
      }
      let stream = HTTPStream(limit: Self.eventStreamLimit)
      daemon.subscribe(
        after: after, stream: stream, failuresOnly: request.query["entries"] == "failed")
      return HTTPResponse.eventStream(stream)
    case ("POST", .shutdown):
      onShutdown()
      return Self.json(202, ["stopping": true])
    default:
      throw ServiceError(.notFound, "no such call: \(request.method) \(request.path)")
    }
  }

  /// How far an events reader may fall behind before it is cut off: room for a full replay
  /// of the events kept (about 10,000 lines of a few hundred bytes).
  static let eventStreamLimit = 8 << 20

  /// The job a `POST /v1/jobs` body describes.
  private func submission(_ request: HTTPRequest) throws(ServiceError) -> JobSubmission {
    let body = try Self.object(request.body)
    let source: JobSubmission.Source
    switch (body["manifest"], body["urls"], body["manifest_file"]) {
    case (let text as String, nil, nil):
      source = .text(text)
    case (nil, let urls as [Any], nil):
      let texts = urls.compactMap { $0 as? String }
      guard texts.count == urls.count else {
        throw ServiceError(.usage, "\"urls\" must be a list of strings")
      }
      source = .urls(texts)
    case (nil, nil, let path as String):
      guard case .unix = request.listener else {
        throw ServiceError(.usage, "\"manifest_file\" is taken on the control socket only")
      }
      guard path.hasPrefix("/") else {
        throw ServiceError(.usage, "\"manifest_file\" must be an absolute path")
      }
      source = .file(path)
    default:
      throw ServiceError(
        .usage, "give one of \"manifest\" (JSON Lines text) or \"urls\" (a list)")
    }
    var output: String?
    if let value = body["output"], !(value is NSNull) {
      guard let text = value as? String else {
        throw ServiceError(.usage, "\"output\" must be a string")
      }
      output = text
    }
    let paused = (body["paused"] as? Bool) ?? false
    return JobSubmission(
      source: source, output: output, options: try JobOptions(json: body["options"]),
      paused: paused)
  }

  static func json(_ status: Int, _ object: Any) -> HTTPResponse {
    HTTPResponse.json(status: status, Array((JSONText.encode(object) + "\n").utf8))
  }

  static func error(_ error: ServiceError) -> HTTPResponse {
    var response = json(
      error.status, ["error": ["code": error.code.rawValue, "message": error.message]])
    if error.code == .unauthorized { response.headers["WWW-Authenticate"] = "Bearer" }
    return response
  }

  private static func object(_ body: [UInt8]) throws(ServiceError) -> [String: Any] {
    guard !body.isEmpty else { return [:] }
    guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
    else { throw ServiceError(.usage, "the request body must be a JSON object") }
    return object
  }

  private static func number(_ text: String?, _ name: String, default value: Int)
    throws(ServiceError) -> Int
  {
    guard let text else { return value }
    guard let number = Int(text), number >= 0 else {
      throw ServiceError(.usage, "\(name) must be a whole number")
    }
    return number
  }
}
