import Foundation
import HaulCore
import Synchronization

/// The real nginx (`/usr/sbin/nginx`), started on a free 127.0.0.1 port with a generated
/// configuration in a temporary directory, for tests against a production web server.
///
/// It serves `root` as static files (`etag on`, `sendfile`, keep-alive, ranges) and accepts
/// `PUT /upload/...` into `root/upload/` (WebDAV, no body size limit). Everything it writes
/// (pid, logs, temp files) stays in its directory; the access log lets tests count requests.
///
/// With `tls: true` it also serves the same root over HTTPS on `tlsPort`, with a fresh
/// self-signed certificate for `127.0.0.1` (`certificatePath`, to trust as an extra CA). On
/// both ports, `/to-http/<path>` redirects (302) to `<path>` on the HTTP port and
/// `/to-https/<path>` to `<path>` on the HTTPS port. With `http2: true` the HTTPS port also
/// offers HTTP/2 (ALPN `h2`; never cleartext h2c). Files under `root/slow/` are sent at
/// 1 MB/s per request (`limit_rate`), so requests overlap long enough to be counted; the
/// timing log (`timingLog()`) says which protocol and connection served each request, and
/// when. `root/listed/` is served with `autoindex` (HTML) at `/listed/` and as
/// `autoindex_format json` at `/listed-json/`; `/listed/blocked/` (and its JSON twin)
/// answers 403, a folder that cannot be listed.
///
/// nginx runs in the foreground (`daemon off;`) as this process's child. `stop()` always ends
/// it (SIGTERM, then SIGKILL for it and its workers) and removes the directory; use
/// `NginxFixture.with { }` so that happens whatever the test does. A missing nginx is an error
/// naming the package to install, never a silent skip.
public final class NginxFixture: Sendable {
  /// Where Debian installs nginx.
  public static let binary = "/usr/sbin/nginx"

  /// The port nginx listens on (127.0.0.1).
  public let port: Int
  /// The HTTPS port, when started with `tls: true`.
  public let tlsPort: Int?
  /// The fixture's temporary directory (config, logs, pid, `root/`).
  public let directory: TemporaryDirectory
  /// The document root: `url("/a/b")` serves `root/a/b`.
  public var root: String { directory.file("root") }
  /// nginx's access log, one line per request: `METHOD URI STATUS BYTES`.
  public var accessLogPath: String { directory.file("access.log") }
  /// The certificate the HTTPS port presents (PEM, self-signed: trust it as an extra CA).
  public var certificatePath: String? { tlsPort == nil ? nil : directory.file("cert.pem") }

  private let process: Mutex<Process?>

  private init(port: Int, tlsPort: Int?, directory: TemporaryDirectory, process: Process) {
    self.port = port
    self.tlsPort = tlsPort
    self.directory = directory
    self.process = Mutex(process)
  }

  deinit {
    stop()
  }

  /// Starts nginx, runs `body` with it, and stops it however `body` ends.
  public static func with<T>(
    tls: Bool = false, http2: Bool = false, _ body: (NginxFixture) async throws -> T
  ) async throws -> T {
    try await withFixture(start: { try start(tls: tls, http2: http2) }, stop: { $0.stop() }, body)
  }

  /// Starts nginx (also on HTTPS when `tls`, offering HTTP/2 there when `http2`) and waits
  /// until it accepts connections, on free ports (`startOnFreePort`), the HTTP one `port`
  /// when given.
  public static func start(tls: Bool = false, http2: Bool = false, port: Int? = nil) throws
    -> NginxFixture
  {
    try FixtureError.requireExecutable(binary, name: "nginx", package: "nginx")
    return try startOnFreePort(first: port) { port in
      let directory = try TemporaryDirectory(prefix: "haul-nginx")
      do {
        var tlsPort = tls ? try freePort() : nil
        while tlsPort == port { tlsPort = try freePort() }
        if tls { try makeCertificate(in: directory) }
        try writeConfiguration(in: directory, port: port, tlsPort: tlsPort, http2: http2)
        let process = try launch(in: directory)
        let fixture = NginxFixture(
          port: port, tlsPort: tlsPort, directory: directory, process: process)
        if fixture.waitUntilListening(timeout: 10) { return fixture }
        let log = (try? String(contentsOfFile: directory.file("error.log"), encoding: .utf8)) ?? ""
        fixture.stop()
        throw FixtureError("nginx did not start listening on 127.0.0.1:\(port): \(log)")
      } catch {
        directory.remove()
        throw error
      }
    }
  }

  /// Stops nginx (SIGTERM; SIGKILL to it and its workers after 3 s) and removes its
  /// directory. Idempotent.
  public func stop() {
    guard let process = process.take() else { return }
    if !process.hasExited {
      let pid = process.processIdentifier
      let workers = Self.children(of: pid)
      kill(pid, SIGTERM)
      let deadline = Date().addingTimeInterval(3)
      while !process.hasExited && Date() < deadline { usleep(10_000) }
      if !process.hasExited {
        for worker in workers { kill(worker, SIGKILL) }
        kill(pid, SIGKILL)
        process.waitForExit()
      }
    }
    directory.remove()
  }

  /// The URL of `path` (which starts with `/`) on this nginx.
  public func url(_ path: String) -> URL {
    URL(string: "http://127.0.0.1:\(port)\(path)")!
  }

  /// The HTTPS URL of `path` on this nginx (started with `tls: true`).
  public func httpsURL(_ path: String) -> URL {
    URL(string: "https://127.0.0.1:\(tlsPort ?? 0)\(path)")!
  }

  /// Creates `root/<relativePath>` holding `size` bytes of `TestContent` stream `seed`
  /// (folders included) and returns its SHA-256.
  @discardableResult
  public func createFile(_ relativePath: String, size: Int64, seed: UInt64) throws -> String {
    let path = "\(root)/\(relativePath)"
    try FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    return try TestContent.writeFile(at: path, seed: seed, count: size)
  }

  /// The length and SHA-256 of `root/<relativePath>` (an uploaded file, say), if it exists.
  public func fileDigest(_ relativePath: String) -> FileDigest? {
    FileDigest(path: "\(root)/\(relativePath)")
  }

  /// The access log's entries. nginx writes a line only after its response went out, so a
  /// client may finish first: this waits (up to `timeout` seconds) until there are at least
  /// `count` entries, then returns what is there.
  public func accessLog(atLeast count: Int = 0, timeout: Double = 5) -> [AccessLogEntry] {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      let text = (try? String(contentsOfFile: accessLogPath, encoding: .utf8)) ?? ""
      let entries = text.split(separator: "\n").compactMap(AccessLogEntry.init)
      if entries.count >= count || Date() >= deadline { return entries }
      usleep(10_000)
    }
  }

  // MARK: - Setup

  /// A 127.0.0.1 port free at the moment of asking: one the kernel picks, released at once.
  static func freePort() throws -> Int { try RefusingPort().port }

  private static func launch(in directory: TemporaryDirectory) throws -> Process {
    do {
      return try Process.daemon(
        binary,
        [
          "-p", directory.path, "-c", directory.file("nginx.conf"), "-e",
          directory.file("error.log"),
        ])
    } catch {
      throw FixtureError("cannot run \(binary): \(error)")
    }
  }

  /// Waits until this nginx holds its ports: it has written its pid file (`wrotePidFile`)
  /// and they accept connections. A connection alone could reach another test's server that
  /// took the port between `freePort` and nginx's bind, while nginx still retried the bind.
  private func waitUntilListening(timeout: Double) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      guard let running = process.withLock({ $0?.hasExited == false ? $0 : nil }) else {
        return false
      }
      if running.wrotePidFile(directory.file("nginx.pid")), Self.canConnect(port: port),
        tlsPort.map(Self.canConnect) ?? true
      {
        return true
      }
      usleep(10_000)
    }
    return false
  }

  static func canConnect(port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
  }

  /// The pids whose parent is `pid` (nginx's workers), from `/proc`.
  private static func children(of pid: Int32) -> [Int32] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { entry -> Int32? in
      guard let child = Int32(entry),
        let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
      else { return nil }
      let fields = stat[stat.index(after: close)...].split(separator: " ")
      return fields.count > 1 && Int32(fields[1]) == pid ? child : nil
    }
  }
}

/// One line of the `NginxFixture` access log.
public struct AccessLogEntry: Sendable, Hashable {
  public var method: String
  public var uri: String
  public var status: Int
  public var bodyBytes: Int64

  init?(_ line: Substring) {
    let parts = line.split(separator: " ")
    guard parts.count == 4, let status = Int(parts[2]), let bytes = Int64(parts[3]) else {
      return nil
    }
    method = String(parts[0])
    uri = String(parts[1])
    self.status = status
    bodyBytes = bytes
  }
}
