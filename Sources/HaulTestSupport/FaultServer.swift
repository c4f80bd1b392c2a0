import Dispatch
import Foundation
import HaulCore
import Synchronization

/// An in-process HTTP/1.1 server on a loopback address that misbehaves on request, for
/// transport and scheduler tests.
///
/// It listens on a kernel-chosen port (port 0) the first time `start()` runs and keeps that
/// port: `stop()` closes the listener and every open connection, and a later `start()` binds
/// the same port again (`SO_REUSEADDR`), so a test can take the server down and bring it back.
/// Each connection gets its own thread with blocking POSIX sockets and keep-alive.
///
/// Routes (all content is `TestContent`, streamed in chunks, never held whole):
/// - `GET|HEAD /data/<name>?size=N&seed=S`: 200 with `Content-Length`, a strong `ETag`,
///   `Last-Modified`; `Range: bytes=a-`, `a-b`, `-n` answered with 206 + `Content-Range`
///   (416 when unsatisfiable), unless `If-Range` does not match (then a full 200).
/// - `/echo`: a JSON object `{"method", "path", "headers"}` of the request (header names
///   lowercased, repeated fields joined with ", ").
/// - `PUT|POST /upload/<name>`: stores the body's length and SHA-256 (see `upload(named:)`)
///   and answers 201 with them as JSON.
/// - `/rufh/...`: the IETF resumable upload draft's server (see `FaultServer+Resumable.swift`).
/// - `/dav/<options>/`: a WebDAV folder whose options are written in its first segment as a
///   query is (a listing's URLs carry no query): `PROPFIND` answers 207 listing `file.bin`
///   with its `size` and the ETag `"v0"` (`"v1"` from the folder's hit `listedChangeAfter`
///   on); `GET|HEAD /dav/<options>/<name>` is `/data/<name>` with those options.
/// - `/h2o/<options>/`: a small tree listed as h2o lists folders, without the trailing `/`,
///   a folder asked so redirected to its URL plus `/` (see `FaultExchange.h2oTree`).
/// - Anything else: 404 with a small text body.
///
/// Options (query parameters), on any route unless noted. A request's "hit" is how many
/// earlier requests this server saw for the same path + query; options marked *fault* apply
/// only while hit < `times` (always when `times` is absent):
/// - `status=N&retryAfter=V` *fault*: answer N with a short text body (`Retry-After: V`);
///   with `s3error=CODE`, the body is an S3 error document naming CODE instead.
/// - `redirect=<percent-encoded URL>&code=C` *fault*: answer C (default 302) to that URL.
/// - `loop=1&code=C`: redirect to the same URL with `hop` incremented, forever.
/// - `wait=T`: sleep T seconds before sending the response head.
/// - `drop=N` *fault*: close the connection after N body bytes (uploads: after receiving N).
/// - `stall=N&stallSeconds=T` *fault*: send N body bytes, then send nothing for T seconds.
/// - `drip=B`: send the body at about B bytes per second; B may be a fraction (`0.5`: one
///   byte every 2 s), for a body that is slow but never silent for long.
/// - `lie=N` *fault*: `Content-Length` N bytes more than the body sent, then close.
/// - `bigHeaders=N` *fault*: add about N bytes of filler header fields.
/// - `headerLine=N` *fault*: add one header field whose line is N bytes long.
/// - `statusLine=TEXT` *fault*: send TEXT as the status line (`HTTP/1.1 2000 OK`).
/// - `/data` only, malformed framing, each *fault* and closing the connection after the
///   body: `lengths=V;W;...` (one `Content-Length` field per `;`-separated value, sent as
///   written: `10, 12` is one field of two values, `10;12` two fields; with `chunked=1`
///   beside `Transfer-Encoding: chunked`), `http09=1` (no status line and no header at
///   all: an HTTP/0.9 answer).
/// - `/data` only: `ignoreRange=1` (always a full 200), `etag=changing` (every request gets
///   new content: seed, `ETag` and `Last-Modified` change with the hit), `endless=1` (a
///   chunked body that never ends), `flood=N` (a chunked body of about N bytes, sent as fast as the
///   socket takes them: one 256 KiB chunk repeated, not the content of `seed`, for a body
///   longer than a client can keep up with), `chunked=1` (the body in chunked encoding;
///   with `trailers=1`, trailer fields after the last chunk, announced in `Trailer`; with
///   `trailers=unannounced`, the same fields without `Trailer`),
///   `badChunk=1` *fault* (chunked, but a malformed chunk-size line where the last chunk
///   belongs, then close), `changeAfter=K` (requests from hit K on get a second version:
///   the content, `ETag` and `Last-Modified` of `changingSeed(seed, hit: 1)`),
///   `ignoreIfRange=1` (answers `Range` with a 206 even when `If-Range` names another
///   version, as h2o 2.2 does), `keepValidator=1` (with `changeAfter` or `etag=changing`,
///   the content changes but `ETag` and `Last-Modified` stay the first version's: a server
///   whose validators cannot tell the versions apart),
///   `declare=FORM,...` (digest fields such as `Repr-Digest`, `Content-Digest`, `Digest`,
///   `x-goog-hash`, `x-amz-checksum-sha256`, or `malformed` ones; see `DeclaredDigestFields`)
///   with `declareWrong=1` *fault* (the declared digests are of other bytes).
/// - `bearer=H`: 401 (with `WWW-Authenticate: Bearer`) unless the request carries
///   `Authorization: Bearer T` where T's SHA-256 is H (hex; the URL never holds the token):
///   a token that expired, for credential refresh tests.
/// - `refuse=N` *fault*, `/upload` only: answer N as soon as the head is read, without
///   reading the body or sending `100 Continue`, and close the connection. A request that
///   waits for `100 Continue` gets the answer; any other is reset with its body unread
///   (`SO_LINGER` 0) and its answer is lost, held back until the reset discards it: what
///   libcurl met when lighttpd refused a PUT over TLS (on plain loopback TCP libcurl reads
///   an answer that arrived before the reset, so only holding it back makes the loss sure).
/// - `throttle=K&retryAfter=V`: a server that throttles busy clients: 429 (with
///   `Retry-After: V`) whenever more than K requests carrying `throttle` would be in
///   flight at once, this one included; see `FaultServer+Throttle.swift`.
///
/// Every request is logged (`requests`) with its start and end order, so tests can assert
/// what was asked and how many requests were in flight at once (`maxInFlight(pathPrefix:)`).
/// Hit counters and uploads live in the instance: parallel tests with different names or
/// different servers do not interfere.
public final class FaultServer: Sendable {
  /// The address the server listens on: `127.0.0.1`, `127.0.0.2` as "another host", or the
  /// IPv6 loopback `::1`.
  public let host: String

  struct Shared {
    var port: UInt16 = 0
    var listener: Int32 = -1
    var running = false
    /// Bumped by every `start()` and `stop()`; connection threads compare it to notice a stop.
    var generation: UInt64 = 0
    var connections: Set<Int32> = []
    var nextConnectionID = 0
    var sequence: UInt64 = 0
    var records: [RequestRecord] = []
    var hits: [String: Int] = [:]
    var uploads: [String: UploadRecord] = [:]
    var bodyBytes: [String: Int64] = [:]
    var inFlight = 0
    var maxInFlight = 0
    /// Requests with a `throttle` option being answered (see `FaultServer+Throttle.swift`).
    var throttledInFlight = 0
    /// The resumable upload draft's upload resources (see `FaultServer+Resumable.swift`).
    var resumable: [String: ResumableResource] = [:]
    var nextResumableID = 0
  }
  let shared = Mutex(Shared())
  /// Threads serving connections (and the accept thread), so `stop()` can wait for them.
  let threads = DispatchGroup()

  /// Whether each request is kept in `requests` (benchmarks making millions of requests
  /// turn this off; counters, hits and uploads are kept either way).
  public let recordsRequests: Bool

  /// A server on `host` (a loopback address, IPv4 or `::1`); call `start()` to listen.
  public init(host: String = "127.0.0.1", recordsRequests: Bool = true) {
    self.host = host
    self.recordsRequests = recordsRequests
  }

  /// Starts a server and returns it, listening.
  public static func started(
    host: String = "127.0.0.1", recordsRequests: Bool = true
  ) throws -> FaultServer {
    let server = FaultServer(host: host, recordsRequests: recordsRequests)
    try server.start()
    return server
  }

  /// Starts listening: on a kernel-chosen port the first time, on the same port afterwards.
  public func start() throws {
    let (wanted, alreadyRunning) = shared.withLock { ($0.port, $0.running) }
    guard !alreadyRunning else { return }
    let fd = try Self.listen(host: host, port: wanted)
    // sin6_port sits where sin_port does, so one sockaddr_in6 reads either family's port.
    var address = sockaddr_in6()
    var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    let port = UInt16(bigEndian: address.sin6_port)
    let generation = shared.withLock { s in
      s.port = port
      s.listener = fd
      s.running = true
      s.generation &+= 1
      return s.generation
    }
    threads.enter()
    let thread = Thread { [self] in
      acceptLoop(listener: fd, generation: generation)
      threads.leave()
    }
    thread.name = "FaultServer.accept:\(port)"
    thread.start()
  }

  /// Stops listening, closes every open connection and waits (up to 5 s) for their threads.
  /// The port is kept for the next `start()`. Safe to call when not running.
  public func stop() {
    let listener = shared.withLock { s -> Int32 in
      guard s.running else { return -1 }
      s.running = false
      s.generation &+= 1
      // The listener first, as when a server dies: a client whose connection is cut finds
      // nothing accepting.
      let listener = s.listener
      s.listener = -1
      shutdown(listener, Int32(SHUT_RDWR))
      for fd in s.connections { shutdown(fd, Int32(SHUT_RDWR)) }
      return listener
    }
    guard listener >= 0 else { return }
    _ = threads.wait(timeout: .now() + 5)
    close(listener)
  }

  /// The port the server listens on (0 before the first `start()`).
  public var port: Int { Int(shared.withLock { $0.port }) }

  /// `http://host:port` (an IPv6 host in brackets), without a trailing slash.
  public var origin: String {
    host.contains(":") ? "http://[\(host)]:\(port)" : "http://\(host):\(port)"
  }

  /// The URL of `pathAndQuery` (which starts with `/`) on this server.
  public func url(_ pathAndQuery: String) -> URL {
    URL(string: origin + pathAndQuery)!
  }

  /// The URL of `/data/<name>` with `size`, `seed` and further `options` as query items.
  public func dataURL(
    _ name: String, size: Int64, seed: UInt64, options: [String: String] = [:]
  ) -> URL {
    var query = "size=\(size)&seed=\(seed)"
    for (key, value) in options.sorted(by: { $0.key < $1.key }) {
      query += "&\(key)=\(Self.percentEncoded(value))"
    }
    return url("/data/\(name)?\(query)")
  }

  /// `value` percent-encoded for use as a query value (also `&`, `=`, `?`, `/`, `:`).
  public static func percentEncoded(_ value: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
  }

  /// The content seed that `/data/...&seed=S&etag=changing` serves to the request with the
  /// given hit (0 for the first request of that URL), so tests know the bytes to expect.
  public static func changingSeed(_ seed: UInt64, hit: Int) -> UInt64 {
    seed &+ UInt64(hit) &* 0x1_0000_0001
  }

  // MARK: - Observations

  /// Every request received so far, in arrival order (empty unless `recordsRequests`).
  public var requests: [RequestRecord] { shared.withLock { $0.records } }

  /// The requests whose path starts with `prefix`.
  public func requests(pathPrefix prefix: String) -> [RequestRecord] {
    shared.withLock { $0.records.filter { $0.path.hasPrefix(prefix) } }
  }

  /// Requests being answered right now.
  public var inFlight: Int { shared.withLock { $0.inFlight } }

  /// The most requests ever answered at once.
  public var maxInFlight: Int { shared.withLock { $0.maxInFlight } }

  /// The most requests whose path starts with `prefix` that were ever answered at once.
  public func maxInFlight(pathPrefix prefix: String) -> Int {
    RequestRecord.maxInFlight(requests(pathPrefix: prefix))
  }

  /// What the last complete upload to `/upload/<name>` delivered, if any.
  public func upload(named name: String) -> UploadRecord? {
    shared.withLock { $0.uploads[name] }
  }

  // MARK: - Listening

  /// Binds `fd` to `address`, a `sockaddr_in` or `sockaddr_in6`.
  private static func bind<Address>(_ fd: Int32, _ address: inout Address) -> Int32 {
    withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.bind(fd, $0, socklen_t(MemoryLayout<Address>.size))
      }
    }
  }

  private static func listen(host: String, port: UInt16) throws -> Int32 {
    let six = host.contains(":")
    let fd = socket(
      six ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw FixtureError("socket: \(errnoText())") }
    var yes: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    let bound: Int32
    if six {
      setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &yes, socklen_t(MemoryLayout<Int32>.size))
      var address = sockaddr_in6()
      address.sin6_family = sa_family_t(AF_INET6)
      address.sin6_port = port.bigEndian
      guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else {
        close(fd)
        throw FixtureError("not an IPv6 address: \(host)")
      }
      bound = Self.bind(fd, &address)
    } else {
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = port.bigEndian
      guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
        close(fd)
        throw FixtureError("not an IPv4 address: \(host)")
      }
      bound = Self.bind(fd, &address)
    }
    guard bound == 0, Glibc.listen(fd, 512) == 0 else {
      let message = errnoText()
      close(fd)
      throw FixtureError("cannot listen on \(host):\(port): \(message)")
    }
    return fd
  }

  private func acceptLoop(listener: Int32, generation: UInt64) {
    while true {
      let fd = accept(listener, nil, nil)
      if fd < 0 {
        if errno == EINTR || errno == ECONNABORTED { continue }
        return
      }
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
      let id = shared.withLock { s -> Int? in
        guard s.running, s.generation == generation else { return nil }
        s.connections.insert(fd)
        s.nextConnectionID += 1
        return s.nextConnectionID
      }
      guard let id else {
        close(fd)
        return
      }
      var yes: Int32 = 1
      setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
      threads.enter()
      let thread = Thread { [self] in
        serve(FaultConnection(fd: fd, id: id), generation: generation)
        shared.withLock { _ = $0.connections.remove(fd) }
        close(fd)
        threads.leave()
      }
      thread.name = "FaultServer.connection:\(id)"
      thread.start()
    }
  }

  /// Whether the server is still in the run that started at `generation`.
  func isRunning(_ generation: UInt64) -> Bool {
    shared.withLock { $0.running && $0.generation == generation }
  }
}
