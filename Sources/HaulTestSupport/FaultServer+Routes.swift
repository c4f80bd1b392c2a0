import Foundation
import HaulCore

extension FaultServer {
  /// Answers requests on one connection until either side closes it or the server stops.
  func serve(_ connection: FaultConnection, generation: UInt64) {
    while isRunning(generation) {
      switch connection.readHead() {
      case .closed:
        return
      case .malformed:
        _ = connection.send(
          "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        return
      case .request(let request):
        let (index, hit) = begin(request, connectionID: connection.id)
        let exchange = FaultExchange(
          server: self, connection: connection, request: request, index: index, hit: hit,
          generation: generation)
        let keepOpen = exchange.respond()
        end(index)
        guard keepOpen, request.keepAlive else { return }
      }
    }
  }
}

/// One request being answered by the `FaultServer`, on the connection's thread.
private struct FaultExchange {
  let server: FaultServer
  let connection: FaultConnection
  let request: FaultRequest
  let index: Int
  let hit: Int
  let generation: UInt64
  let options: [String: String]

  init(
    server: FaultServer, connection: FaultConnection, request: FaultRequest, index: Int, hit: Int,
    generation: UInt64
  ) {
    self.server = server
    self.connection = connection
    self.request = request
    self.index = index
    self.hit = hit
    self.generation = generation
    self.options = request.folderOptions ?? request.options
  }

  /// Whether options marked "fault" apply to this request (`hit < times`, or no `times`).
  var faulty: Bool {
    guard let times = int("times") else { return true }
    return Int64(hit) < times
  }

  func int(_ key: String) -> Int64? { options[key].flatMap { Int64($0) } }
  func double(_ key: String) -> Double? { options[key].flatMap { Double($0) } }

  /// Sends the response; returns whether the connection may carry another request.
  func respond() -> Bool {
    if request.path.hasPrefix("/rufh/") {
      return server.resumable(request, connection: connection, hit: hit, index: index)
    }
    let isUpload =
      request.path.hasPrefix("/upload/") && (request.method == "PUT" || request.method == "POST")
    let divertsUpload =
      faulty && (options["status"] != nil || options["redirect"] != nil) || options["loop"] != nil
    if isUpload, faulty, let status = int("refuse") { return refuse(status: Int(status)) }
    if request.hasBody && (!isUpload || divertsUpload) {
      guard connection.readBody(of: request, { _ in true }) else { return false }
    }
    if let limit = int("throttle") {
      guard server.enterThrottled(limit: Int(limit)) else { return sendThrottled() }
    }
    defer { if options["throttle"] != nil { server.leaveThrottled() } }
    if let wait = double("wait"), !pause(wait) { return false }
    if let digest = options["bearer"], !bearerMatches(digest) {
      return sendSmall(
        status: 401, headers: [("WWW-Authenticate", "Bearer")], body: "unauthorized\n")
    }
    if faulty, let status = int("status") {
      var headers: [(String, String)] = []
      if let retryAfter = options["retryAfter"] { headers.append(("Retry-After", retryAfter)) }
      if let code = options["s3error"] {
        headers.append(("Content-Type", "application/xml"))
        return sendSmall(
          status: Int(status), headers: headers,
          body: "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>\(code)</Code>"
            + "<Message>injected</Message><RequestId>0</RequestId></Error>\n")
      }
      return sendSmall(status: Int(status), headers: headers, body: "status \(status)\n")
    }
    if faulty, let target = options["redirect"] {
      return sendSmall(
        status: Int(int("code") ?? 302), headers: [("Location", target)], body: "")
    }
    if options["loop"] == "1" {
      return sendSmall(
        status: Int(int("code") ?? 302), headers: [("Location", nextHopURL())], body: "")
    }
    if request.path == "/echo" { return echo() }
    if request.path.hasPrefix("/dav/") { return davFolder() }
    if request.path.hasPrefix("/h2o/") { return h2oTree() }
    if request.path.hasPrefix("/data/") {
      return request.method == "GET" || request.method == "HEAD"
        ? data(name: String(request.path.dropFirst(6)))
        : sendSmall(status: 405, headers: [("Allow", "GET, HEAD")], body: "method not allowed\n")
    }
    if isUpload { return upload(name: String(request.path.dropFirst(8))) }
    return sendSmall(status: 404, headers: [], body: "not found: \(request.path)\n")
  }

  // MARK: Routes

  private func data(name: String) -> Bool {
    if let flood = int("flood") { return sendFlood(flood) }
    let size = int("size") ?? 0
    let changing = options["etag"] == "changing"
    let changed = int("changeAfter").map { Int64(hit) >= $0 } ?? false
    let generationOfContent = changing ? UInt64(hit) : changed ? 1 : 0
    let baseSeed = options["seed"].flatMap { UInt64($0) } ?? TestContent.seed(for: name)
    let seed = FaultServer.changingSeed(baseSeed, hit: Int(generationOfContent))
    let validated = options["keepValidator"] == "1" ? 0 : generationOfContent
    let etag =
      "\"\(String(FaultServer.changingSeed(baseSeed, hit: Int(validated)), radix: 16))-\(size)\""
    let lastModified = Self.httpDate(
      Date(timeIntervalSince1970: 1_704_067_200 + Double(validated) * 60))
    let endless = options["endless"] == "1"
    let badChunk = faulty && options["badChunk"] == "1"
    let chunked = endless || badChunk || options["chunked"] == "1"

    var headers: [(String, String)] = [
      ("Content-Type", "application/octet-stream"), ("ETag", etag),
      ("Last-Modified", lastModified),
    ]
    var status = 200
    var start: Int64 = 0
    var length = size
    if !endless, options["ignoreRange"] != "1" {
      headers.append(("Accept-Ranges", "bytes"))
      let honoursIfRange = options["ignoreIfRange"] != "1"
      if let range = request.value(for: "Range"),
        !honoursIfRange || rangeAllowed(etag: etag, date: lastModified)
      {
        switch Self.parseRange(range, size: size) {
        case .none:
          break
        case .unsatisfiable:
          return sendSmall(
            status: 416, headers: [("Content-Range", "bytes */\(size)")], body: "")
        case .some(let first, let last):
          status = 206
          start = first
          length = last - first + 1
          headers.append(("Content-Range", "bytes \(first)-\(last)/\(size)"))
        }
      }
    }
    if let declare = options["declare"] {
      headers += DeclaredDigestFields.fields(
        declare.split(separator: ",").map(String.init), seed: seed, size: size,
        part: start..<(start + length), wrong: faulty && options["declareWrong"] == "1")
    }
    // `lengths` and `http09` frame the body wrongly on purpose: the connection closes after it.
    let lengths = faulty ? options["lengths"] : nil
    let http09 = faulty && options["http09"] == "1"
    let lie = faulty ? int("lie") : nil
    let closes = lie != nil || lengths != nil || http09
    let trailers = chunked && (options["trailers"] == "1" || options["trailers"] == "unannounced")
    if chunked {
      headers.append(("Transfer-Encoding", "chunked"))
      if options["trailers"] == "1" {
        headers.append(("Trailer", "X-Trailer-Digest, X-Trailer-Count"))
      }
    }
    if let lengths {
      for value in lengths.split(separator: ";", omittingEmptySubsequences: false) {
        headers.append(("Content-Length", String(value)))
      }
    } else if !chunked {
      headers.append(("Content-Length", String(length + (lie ?? 0))))
    }
    if !request.keepAlive || closes { headers.append(("Connection", "close")) }
    if !http09 {
      guard sendHead(status: status, headers: headers) else { return false }
    }
    if request.method == "HEAD" { return !closes }
    let complete = sendContent(
      seed: seed, offset: start, length: endless ? .max : length, chunked: chunked)
    guard complete else { return false }
    if chunked {
      // A malformed chunk-size line instead of the last chunk, then close.
      guard !badChunk else {
        _ = connection.send("zz\r\n")
        return false
      }
      let fields = trailers ? "X-Trailer-Digest: sha-256=:done:\r\nX-Trailer-Count: 2\r\n" : ""
      guard connection.send("0\r\n" + fields + "\r\n") else { return false }
    }
    return !closes
  }

  /// `/dav/<options>/`: `PROPFIND` lists the folder's one file, `file.bin`, with its size
  /// and the ETag `"v0"`, or `"v1"` from the folder's hit `listedChangeAfter` on; a `GET`
  /// of a file in it is `/data/<name>` with the folder's options.
  private func davFolder() -> Bool {
    let segments = request.path.split(separator: "/", omittingEmptySubsequences: false)
    guard segments.count == 4 else {
      return sendSmall(status: 404, headers: [], body: "not found: \(request.path)\n")
    }
    guard segments[3].isEmpty else {
      return request.method == "GET" || request.method == "HEAD"
        ? data(name: String(segments[3]))
        : sendSmall(status: 405, headers: [("Allow", "GET, HEAD")], body: "method not allowed\n")
    }
    guard request.method == "PROPFIND" else {
      return sendSmall(status: 405, headers: [("Allow", "PROPFIND")], body: "method not allowed\n")
    }
    let version = int("listedChangeAfter").map { Int64(hit) >= $0 } == true ? 1 : 0
    let folder = request.path
    let body = """
      <?xml version="1.0" encoding="utf-8"?>
      <D:multistatus xmlns:D="DAV:">
      <D:response><D:href>\(folder)</D:href><D:propstat><D:prop>
      <D:resourcetype><D:collection/></D:resourcetype></D:prop>
      <D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>
      <D:response><D:href>\(folder)file.bin</D:href><D:propstat><D:prop>
      <D:resourcetype/><D:getcontentlength>\(int("size") ?? 0)</D:getcontentlength>
      <D:getetag>"v\(version)"</D:getetag></D:prop>
      <D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>
      </D:multistatus>

      """
    return sendSmall(
      status: 207, headers: [("Content-Type", "application/xml; charset=utf-8")], body: body)
  }

  /// The folders of `h2oTree`, by their path below `/h2o/<options>/`, each with the names
  /// its page links: folders as h2o links them, without the trailing `/`.
  static let h2oFolders: [String: [String]] = [
    "": ["a.bin", "sub", "with space"], "sub/": ["b.bin", "deeper"], "sub/deeper/": ["c.bin"],
    "with space/": ["d e.bin"],
  ]

  /// `/h2o/<options>/...`: a tree listed as h2o's `file.dirlisting` lists it (see
  /// `h2oFolders`): a folder's page links its parent as `..` and its children without a
  /// trailing `/`; a folder asked without its `/` is redirected (301) to exactly that URL
  /// plus `/`; any other name is `/data/<name>` with the folder's options. Only `GET` and
  /// `HEAD` are taken (h2o answers `PROPFIND` with 405).
  private func h2oTree() -> Bool {
    guard request.method == "GET" || request.method == "HEAD" else {
      return sendSmall(status: 405, headers: [("Allow", "GET, HEAD")], body: "method not allowed\n")
    }
    let segments = request.path.split(separator: "/", omittingEmptySubsequences: false)
    guard segments.count > 3 else {
      return sendSmall(status: 404, headers: [], body: "not found: \(request.path)\n")
    }
    let below = segments[3...].joined(separator: "/")
    let decoded = below.removingPercentEncoding ?? below
    if Self.h2oFolders[decoded + "/"] != nil {
      return sendSmall(status: 301, headers: [("Location", request.path + "/")], body: "")
    }
    guard let names = Self.h2oFolders[decoded] else {
      return data(name: String(decoded.split(separator: "/").last ?? ""))
    }
    var page = "<!DOCTYPE html>\n<TITLE>Index of \(request.path)</TITLE>\n<UL>\n"
    page += #"<LI><A HREF="..">Parent Directory</A>"#
    for name in names {
      let href = name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? name
      page += #"<LI><A HREF="\#(href)">\#(name)</A>"#
    }
    page += "</UL>\n"
    return sendSmall(
      status: 200, headers: [("Content-Type", "text/html; charset=utf-8")], body: page)
  }

  private func echo() -> Bool {
    var headers: [String: String] = [:]
    for field in request.headers {
      let name = field.name.lowercased()
      headers[name] = headers[name].map { "\($0), \(field.value)" } ?? field.value
    }
    let object: [String: Any] = [
      "method": request.method, "path": request.target, "headers": headers,
    ]
    let json =
      (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    return sendSmall(
      status: 200, headers: [("Content-Type", "application/json")],
      body: String(decoding: json, as: UTF8.self))
  }

  private func upload(name: String) -> Bool {
    let hasher = SHA256()
    var received: Int64 = 0
    let dropAfter = faulty ? int("drop") : nil
    let complete = connection.readBody(of: request) { chunk in
      var piece = chunk
      if let dropAfter, received + Int64(chunk.count) >= dropAfter {
        piece = UnsafeRawBufferPointer(rebasing: chunk[..<Int(dropAfter - received)])
      }
      hasher.update(piece)
      received += Int64(piece.count)
      return dropAfter.map { received < $0 } ?? true
    }
    guard complete, dropAfter.map({ received < $0 }) ?? true else { return false }
    let digest = hasher.finalize()
    server.storeUpload(
      UploadRecord(
        method: request.method, length: received, sha256: digest, headers: request.headers),
      name: name)
    return sendSmall(
      status: 201, headers: [("Content-Type", "application/json")],
      body: "{\"length\":\(received),\"sha256\":\"\(digest)\"}")
  }

  /// The `refuse` answer: `status` as soon as the head is read, the body never read and no
  /// `100 Continue` sent. A request that waits for `100 Continue` holds its body back, so
  /// the answer goes out and the connection closes cleanly; any other request's body is
  /// left unread and the connection reset, and the reset discards the answer unsent.
  private func refuse(status: Int) -> Bool {
    let waits = request.value(for: "Expect")?.lowercased() == "100-continue"
    let headers = request.keepAlive ? [("Connection", "close")] : []
    if request.hasBody && !waits {
      connection.holdBack()
      connection.resetOnClose()
    }
    _ = sendSmall(status: status, headers: headers, body: "status \(status)\n")
    return false
  }

  // MARK: Sending

  private func sendHead(status: Int, headers: [(String, String)]) -> Bool {
    server.answered(index, status: status)
    let statusLine = faulty ? options["statusLine"] : nil
    var text = (statusLine ?? "HTTP/1.1 \(status) \(Self.reason(status))") + "\r\n"
    for (name, value) in headers { text += "\(name): \(value)\r\n" }
    if faulty, let filler = int("bigHeaders") {
      var added: Int64 = 0
      let value = String(repeating: "f", count: 1000)
      var n = 0
      while added < filler {
        let line = "X-Filler-\(n): \(value)\r\n"
        text += line
        added += Int64(line.utf8.count)
        n += 1
      }
    }
    if faulty, let length = int("headerLine"), length > 12 {
      text += "X-Long: " + String(repeating: "l", count: Int(length) - 10) + "\r\n"
    }
    text += "\r\n"
    return connection.send(text)
  }

  /// The `throttle` answer: 429, with `Retry-After` when the request asked for one.
  private func sendThrottled() -> Bool {
    var headers: [(String, String)] = []
    if let retryAfter = options["retryAfter"] { headers.append(("Retry-After", retryAfter)) }
    return sendSmall(status: 429, headers: headers, body: "too many requests in flight\n")
  }

  private func sendSmall(status: Int, headers: [(String, String)], body: String) -> Bool {
    var headers = headers
    headers.append(("Content-Length", String(body.utf8.count)))
    if status >= 400 || !body.isEmpty, !headers.contains(where: { $0.0 == "Content-Type" }) {
      headers.append(("Content-Type", "text/plain"))
    }
    if !request.keepAlive { headers.append(("Connection", "close")) }
    guard sendHead(status: status, headers: headers) else { return false }
    if request.method == "HEAD" || body.isEmpty { return true }
    return connection.send(body)
  }

  /// Streams `length` bytes of content `seed` from `offset`, applying `drop`, `stall` and
  /// `drip`. Returns `false` when the body was cut short (on purpose or by the peer).
  private func sendContent(seed: UInt64, offset: Int64, length: Int64, chunked: Bool) -> Bool {
    let dropAfter = faulty ? int("drop") : nil
    let stallAfter = faulty ? int("stall") : nil
    let stallSeconds = double("stallSeconds") ?? 10
    let drip = double("drip").map { max(0.01, $0) }
    let buffer = UnsafeMutableRawBufferPointer.allocate(
      byteCount: TestContent.chunkSize, alignment: 8)
    defer { buffer.deallocate() }
    var sent: Int64 = 0
    var stalled = false
    while sent < length {
      guard server.isRunning(generation) else { return false }
      var piece = min(Int64(buffer.count), length - sent)
      if let dropAfter {
        guard sent < dropAfter else { return false }
        piece = min(piece, dropAfter - sent)
      }
      if let stallAfter, !stalled {
        if sent >= stallAfter {
          stalled = true
          guard pause(stallSeconds) else { return false }
        } else {
          piece = min(piece, stallAfter - sent)
        }
      }
      if let drip { piece = min(piece, max(1, Int64(drip / 10))) }
      let slice = UnsafeMutableRawBufferPointer(rebasing: buffer[..<Int(piece)])
      TestContent.fill(slice, seed: seed, offset: offset + sent)
      if chunked {
        guard connection.send(String(piece, radix: 16) + "\r\n"),
          connection.send(UnsafeRawBufferPointer(slice)), connection.send("\r\n")
        else { return false }
      } else {
        guard connection.send(UnsafeRawBufferPointer(slice)) else { return false }
      }
      sent += piece
      server.countBody(request.path, piece, index: index)
      if let drip, !pause(Double(piece) / drip) { return false }
    }
    if let dropAfter, sent >= dropAfter { return false }
    if let stallAfter, !stalled, sent >= stallAfter, !pause(stallSeconds) { return false }
    return true
  }

  /// A chunked 200 of `length` bytes: one chunk of `TestContent.chunkSize` bytes, framed
  /// once and sent again and again, so the socket is the only limit on the rate.
  private func sendFlood(_ length: Int64) -> Bool {
    let headers = [("Content-Type", "application/octet-stream"), ("Transfer-Encoding", "chunked")]
    guard sendHead(status: 200, headers: headers) else { return false }
    if request.method == "HEAD" { return true }
    let piece = TestContent.chunkSize
    var frame = Array((String(piece, radix: 16) + "\r\n").utf8)
    let header = frame.count
    frame += [UInt8](repeating: 0, count: piece) + Array("\r\n".utf8)
    frame.withUnsafeMutableBytes { bytes in
      TestContent.fill(
        UnsafeMutableRawBufferPointer(rebasing: bytes[header..<(header + piece)]), seed: 1,
        offset: 0)
    }
    var sent: Int64 = 0
    while sent + Int64(piece) <= length {
      guard server.isRunning(generation),
        frame.withUnsafeBytes({ connection.send($0) })
      else { return false }
      sent += Int64(piece)
      server.countBody(request.path, Int64(piece), index: index)
    }
    return connection.send("0\r\n\r\n")
  }

  private func pause(_ seconds: Double) -> Bool {
    connection.pause(seconds) { server.isRunning(generation) }
  }

  // MARK: Helpers

  /// Whether `Range` may be honoured: no `If-Range`, or one matching the current validator.
  private func rangeAllowed(etag: String, date: String) -> Bool {
    guard let validator = request.value(for: "If-Range") else { return true }
    if validator.hasPrefix("\"") { return validator == etag }
    return validator == date
  }

  /// Whether the request's bearer token has the SHA-256 `digest` (hex).
  private func bearerMatches(_ digest: String) -> Bool {
    guard let value = request.value(for: "Authorization"), value.hasPrefix("Bearer ") else {
      return false
    }
    return SHA256.hex(of: Array(value.dropFirst(7).utf8)) == digest
  }

  /// This URL with its `hop` query parameter incremented, as an absolute URL.
  private func nextHopURL() -> String {
    let hop = (int("hop") ?? 0) + 1
    var items = (request.query ?? "").split(separator: "&").filter { !$0.hasPrefix("hop=") }
      .map(String.init)
    items.append("hop=\(hop)")
    let host = request.value(for: "Host") ?? "\(server.host):\(server.port)"
    return "http://\(host)\(request.path)?\(items.joined(separator: "&"))"
  }

  enum RangeAnswer: Equatable {
    case none
    case unsatisfiable
    case some(Int64, Int64)
  }

  /// Interprets a `Range` value against a body of `size` bytes. Multiple ranges and
  /// malformed values are ignored (`.none`), as a server may.
  static func parseRange(_ value: String, size: Int64) -> RangeAnswer {
    let v = value.trimmingASCIIWhitespace()
    guard v.hasPrefix("bytes="), !v.contains(",") else { return .none }
    let spec = v.dropFirst(6)
    guard let dash = spec.firstIndex(of: "-") else { return .none }
    let first = spec[..<dash]
    let last = spec[spec.index(after: dash)...]
    if first.isEmpty {
      guard let suffix = Int64(last), suffix > 0 else { return .none }
      return size == 0 ? .unsatisfiable : .some(max(0, size - suffix), size - 1)
    }
    guard let start = Int64(first), start >= 0 else { return .none }
    if start >= size { return .unsatisfiable }
    if last.isEmpty { return .some(start, size - 1) }
    guard let end = Int64(last), end >= start else { return .none }
    return .some(start, min(end, size - 1))
  }

  static func httpDate(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return formatter.string(from: date)
  }

  static func reason(_ status: Int) -> String {
    switch status {
    case 200: "OK"
    case 201: "Created"
    case 206: "Partial Content"
    case 301: "Moved Permanently"
    case 302: "Found"
    case 303: "See Other"
    case 307: "Temporary Redirect"
    case 308: "Permanent Redirect"
    case 400: "Bad Request"
    case 401: "Unauthorized"
    case 403: "Forbidden"
    case 404: "Not Found"
    case 405: "Method Not Allowed"
    case 408: "Request Timeout"
    case 416: "Range Not Satisfiable"
    case 429: "Too Many Requests"
    case 500: "Internal Server Error"
    case 502: "Bad Gateway"
    case 503: "Service Unavailable"
    default: "Status"
    }
  }
}
