import Foundation
import HaulCore

/// The `FaultServer`'s server of the IETF "Resumable Uploads for HTTP" draft
/// (draft-ietf-httpbis-resumable-upload, interop version 8), for haul's `resumable: "ietf"`
/// uploads. It follows the draft's server rules as written:
///
/// - `POST /rufh/<name>` creates an upload resource for a request with `Upload-Complete`
///   (400 without). When the request names interop version 8 (`Upload-Draft-Interop-Version`)
///   it first answers `104 (Upload Resumption Supported)` with the resource's `Location`,
///   the interop version and `Upload-Limit`, then reads the content, appending what arrives.
///   `Upload-Complete: ?1` whose content was fully processed completes the upload: `200`
///   with `Upload-Complete: ?1` and `{"length", "sha256"}` of the whole representation;
///   `?0` answers `201` with `Location`, `Upload-Limit` and `Upload-Complete: ?0`. A
///   `Content-Length` or `Upload-Length` that disagrees with another is refused with 400
///   (inconsistent length).
/// - `HEAD /rufh/u/<id>`: `204` with `Upload-Offset`, `Upload-Complete`, `Upload-Length`
///   (once known), `Upload-Limit` and `Cache-Control: no-store`; 404 for an unknown resource.
/// - `PATCH /rufh/u/<id>`: appends `application/partial-upload` content (415 for another
///   type) at `Upload-Offset`, which must be the resource's offset (409 with the right
///   `Upload-Offset` otherwise); needs `Upload-Complete` (400 without); a completed upload is
///   not changed (400, or 410 for empty content); content past the known length makes the
///   resource invalid (400). It sends a `104` with the current `Upload-Offset` (no
///   `Location`) before reading, and answers as creation does.
/// - `DELETE /rufh/u/<id>`: deactivates the resource, `204`.
///
/// A resource's URL carries its creation request's query, so the options below reach the
/// requests to it too. Options (each *fault* applies while the request's hit < `times`):
/// - `maxAppend=N`: `Upload-Limit: max-size=…, max-append-size=N`; content over N is
///   answered 413 with the limit.
/// - `interim=0`: no `104` at all, as a server that cannot send interim responses.
/// - `dropCreate=N` *fault*: close the creation request's connection after N content bytes
///   (they are kept: the offset is N).
/// - `dropAppend=N` *fault*: the same for an append.
/// - `locationOrigin=O`: the resource's `Location` names origin O (another server) instead
///   of this one, for tests of what goes to another origin.
/// - `gone=1`: a `HEAD` or `PATCH` of a resource whose creation request's hit was below
///   `times` (every one without `times`) is answered 410, as a server that no longer knows
///   the upload.
extension FaultServer {
  /// One upload resource's state.
  struct ResumableResource {
    var name: String
    var offset: Int64 = 0
    var length: Int64?
    var complete = false
    var hasher = SHA256()
    /// The hit of the creation request that made it (see `gone`).
    var creationHit = 0
  }

  static let interopVersion = "8"

  /// Answers a request under `/rufh/`; whether the connection may carry another request.
  func resumable(
    _ request: FaultRequest, connection: FaultConnection, hit: Int, index: Int
  ) -> Bool {
    var exchange = ResumableExchange(
      server: self, connection: connection, request: request, hit: hit, index: index)
    return exchange.respond()
  }

  func withResumable<T>(_ body: (inout [String: ResumableResource], inout Int) -> T) -> T {
    shared.withLock { body(&$0.resumable, &$0.nextResumableID) }
  }
}

/// One request of the resumable upload route, on the connection's thread.
private struct ResumableExchange {
  let server: FaultServer
  let connection: FaultConnection
  let request: FaultRequest
  let hit: Int
  let index: Int
  let options: [String: String]

  init(
    server: FaultServer, connection: FaultConnection, request: FaultRequest, hit: Int, index: Int
  ) {
    self.server = server
    self.connection = connection
    self.request = request
    self.hit = hit
    self.index = index
    self.options = request.options
  }

  private var faulty: Bool {
    guard let times = options["times"].flatMap({ Int($0) }) else { return true }
    return hit < times
  }

  private func int(_ key: String) -> Int64? { options[key].flatMap { Int64($0) } }

  private var speaksInterop: Bool {
    request.value(for: "Upload-Draft-Interop-Version") == FaultServer.interopVersion
  }

  private var limitField: (String, String) {
    var members = ["max-age=3600"]
    if let most = int("maxAppend") { members.append("max-append-size=\(most)") }
    return ("Upload-Limit", members.joined(separator: ", "))
  }

  mutating func respond() -> Bool {
    let path = request.path
    if request.method == "POST", !path.hasPrefix("/rufh/u/") {
      return create(name: String(path.dropFirst("/rufh/".count)))
    }
    guard path.hasPrefix("/rufh/u/") else { return skipAndAnswer(404, []) }
    let id = String(path.dropFirst("/rufh/u/".count))
    switch request.method {
    case "HEAD": return offset(id)
    case "PATCH": return append(id)
    case "DELETE":
      let known = server.withResumable { uploads, _ in uploads.removeValue(forKey: id) != nil }
      return skipAndAnswer(known ? 204 : 404, [])
    default: return skipAndAnswer(405, [("Allow", "HEAD, PATCH, DELETE")])
    }
  }

  // MARK: Creation, offset retrieval, appending

  private func create(name: String) -> Bool {
    guard let complete = Self.boolean(request.value(for: "Upload-Complete")) else {
      return skipAndAnswer(400, [], body: "not a resumable upload: no Upload-Complete\n")
    }
    let contentLength = request.value(for: "Content-Length").flatMap { Int64($0) }
    let uploadLength = request.value(for: "Upload-Length").flatMap { Int64($0) }
    if let uploadLength, let contentLength, complete, uploadLength != contentLength {
      return skipAndAnswer(400, [], body: "inconsistent upload length\n")
    }
    if let most = int("maxAppend"), let contentLength, contentLength > most {
      return skipAndAnswer(413, [limitField], body: "content over max-append-size\n")
    }
    let id = server.withResumable { uploads, next -> String in
      next += 1
      let id = "\(next)"
      uploads[id] = FaultServer.ResumableResource(
        name: name, length: uploadLength, creationHit: hit)
      return id
    }
    let location =
      (options["locationOrigin"] ?? server.origin) + "/rufh/u/\(id)"
      + (request.query.map { "?" + $0 } ?? "")
    if speaksInterop, options["interim"] != "0" {
      let head =
        "HTTP/1.1 104 Upload Resumption Supported\r\nLocation: \(location)\r\n"
        + "Upload-Draft-Interop-Version: \(FaultServer.interopVersion)\r\n"
        + "\(limitField.0): \(limitField.1)\r\n\r\n"
      guard connection.send(head) else { return false }
    }
    guard receive(into: id, drop: faulty ? int("dropCreate") : nil) else { return false }
    return finish(id, complete: complete, location: location, created: true)
  }

  /// Whether `gone` makes `upload` answer 410.
  private func isGone(_ upload: FaultServer.ResumableResource) -> Bool {
    guard options["gone"] == "1" else { return false }
    return options["times"].flatMap { Int($0) }.map { upload.creationHit < $0 } ?? true
  }

  private func offset(_ id: String) -> Bool {
    guard let upload = server.withResumable({ uploads, _ in uploads[id] }) else {
      return skipAndAnswer(404, [])
    }
    if isGone(upload) { return skipAndAnswer(410, []) }
    var fields = [
      ("Upload-Offset", "\(upload.offset)"), ("Upload-Complete", upload.complete ? "?1" : "?0"),
      limitField, ("Cache-Control", "no-store"),
    ]
    if let length = upload.length { fields.append(("Upload-Length", "\(length)")) }
    return answer(204, fields)
  }

  private func append(_ id: String) -> Bool {
    guard let upload = server.withResumable({ uploads, _ in uploads[id] }) else {
      return skipAndAnswer(404, [])
    }
    if isGone(upload) { return skipAndAnswer(410, []) }
    guard request.value(for: "Content-Type") == "application/partial-upload" else {
      return skipAndAnswer(415, [], body: "PATCH needs application/partial-upload\n")
    }
    guard let complete = Self.boolean(request.value(for: "Upload-Complete")) else {
      return skipAndAnswer(400, [], body: "no Upload-Complete\n")
    }
    let contentLength = request.value(for: "Content-Length").flatMap { Int64($0) } ?? 0
    if upload.complete {
      return skipAndAnswer(
        contentLength == 0 ? 410 : 400, [], body: "upload is already completed\n")
    }
    guard request.value(for: "Upload-Offset").flatMap({ Int64($0) }) == upload.offset else {
      return skipAndAnswer(409, [("Upload-Offset", "\(upload.offset)")], body: "offset mismatch\n")
    }
    if let given = request.value(for: "Upload-Length").flatMap({ Int64($0) }),
      upload.length.map({ $0 != given }) ?? false
    {
      return skipAndAnswer(400, [], body: "inconsistent upload length\n")
    }
    if let most = int("maxAppend"), contentLength > most {
      return skipAndAnswer(413, [limitField], body: "content over max-append-size\n")
    }
    if speaksInterop, options["interim"] != "0" {
      let head =
        "HTTP/1.1 104 Upload Resumption Supported\r\nUpload-Offset: \(upload.offset)\r\n"
        + "Upload-Draft-Interop-Version: \(FaultServer.interopVersion)\r\n\r\n"
      guard connection.send(head) else { return false }
    }
    guard receive(into: id, drop: faulty ? int("dropAppend") : nil) else { return false }
    return finish(id, complete: complete, location: nil, created: false)
  }

  /// Reads the content into resource `id`, appending what arrives; with `drop`, closes the
  /// connection after that many bytes. Whether the whole content arrived.
  private func receive(into id: String, drop: Int64?) -> Bool {
    var received: Int64 = 0
    var invalid = false
    let whole = connection.readBody(of: request) { chunk in
      var piece = chunk
      if let drop, received + Int64(chunk.count) >= drop {
        piece = UnsafeRawBufferPointer(rebasing: chunk[..<Int(drop - received)])
      }
      received += Int64(piece.count)
      let kept = server.withResumable { uploads, _ -> Bool in
        guard var upload = uploads[id] else { return false }
        if let length = upload.length, upload.offset + Int64(piece.count) > length {
          uploads[id] = nil
          return false
        }
        upload.hasher.update(piece)
        upload.offset += Int64(piece.count)
        uploads[id] = upload
        return true
      }
      if !kept { invalid = true }
      return kept && drop.map { received < $0 } ?? kept
    }
    if invalid { _ = answer(400, [("Connection", "close")], body: "offset past the length\n") }
    return whole && !invalid && drop.map { received < $0 } ?? true
  }

  /// The final answer once the content arrived whole.
  private func finish(_ id: String, complete: Bool, location: String?, created: Bool) -> Bool {
    guard complete else {
      var fields = [("Upload-Complete", "?0"), limitField]
      if let location { fields.append(("Location", location)) }
      return answer(created ? 201 : 204, fields)
    }
    let done = server.withResumable { uploads, _ -> (FaultServer.ResumableResource, String)? in
      guard var upload = uploads[id] else { return nil }
      if let length = upload.length, length != upload.offset { return nil }
      upload.complete = true
      upload.length = upload.offset
      let digest = upload.hasher.finalize()
      uploads[id] = upload
      return (upload, digest)
    }
    guard let (upload, digest) = done else {
      return answer(400, [], body: "inconsistent upload length\n")
    }
    server.storeUpload(
      UploadRecord(
        method: request.method, length: upload.offset, sha256: digest, headers: request.headers),
      name: upload.name)
    var fields = [("Upload-Complete", "?1"), ("Content-Type", "application/json")]
    if let location { fields.append(("Location", location)) }
    return answer(200, fields, body: "{\"length\":\(upload.offset),\"sha256\":\"\(digest)\"}")
  }

  // MARK: Sending

  /// Answers without reading the content: a client waiting for `100 Continue` never sends
  /// it; any other has its content read and dropped first.
  private func skipAndAnswer(_ status: Int, _ fields: [(String, String)], body: String = "")
    -> Bool
  {
    let waits = request.value(for: "Expect")?.lowercased() == "100-continue"
    if request.hasBody {
      if waits { return answer(status, fields + [("Connection", "close")], body: body) && false }
      guard connection.readBody(of: request, { _ in true }) else { return false }
    }
    return answer(status, fields, body: body)
  }

  private func answer(_ status: Int, _ fields: [(String, String)], body: String = "") -> Bool {
    server.answered(index, status: status)
    var text = "HTTP/1.1 \(status) \(Self.reasons[status] ?? "Status")\r\n"
    for (name, value) in fields { text += "\(name): \(value)\r\n" }
    if status != 204 { text += "Content-Length: \(body.utf8.count)\r\n" }
    if !request.keepAlive { text += "Connection: close\r\n" }
    text += "\r\n"
    if request.method != "HEAD", status != 204 { text += body }
    return connection.send(text)
  }

  private static let reasons = [
    200: "OK", 201: "Created", 204: "No Content", 400: "Bad Request", 404: "Not Found",
    405: "Method Not Allowed", 409: "Conflict", 410: "Gone", 413: "Content Too Large",
    415: "Unsupported Media Type",
  ]

  private static func boolean(_ value: String?) -> Bool? {
    switch value {
    case "?1": true
    case "?0": false
    default: nil
    }
  }
}
