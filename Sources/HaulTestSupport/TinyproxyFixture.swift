import Foundation
import Synchronization

/// The real tinyproxy (`/usr/bin/tinyproxy`), a forward HTTP proxy started on a free
/// loopback port (127.0.0.1, or `::1` for IPv6 tests) with a throwaway configuration in a
/// temporary directory, for tests that requests go through a proxy (or around it).
///
/// It forwards plain http requests (adding `Via: 1.1 haul-test-proxy`) and tunnels https
/// with `CONNECT` to any port. With `credentials` it demands Basic authentication and answers
/// 407 without it. Its log (`requests()`) lists every request it received, so tests can tell
/// whether a request went through it.
///
/// tinyproxy runs in the foreground (`-d`) as this process's child; `stop()` ends it and
/// removes the directory; use `TinyproxyFixture.with { }`. A missing tinyproxy is an error
/// naming the package to install, never a silent skip.
public final class TinyproxyFixture: Sendable {
  /// Where Debian installs tinyproxy.
  public static let binary = "/usr/bin/tinyproxy"
  /// The name the proxy gives itself in `Via`.
  public static let viaName = "haul-test-proxy"

  /// The port tinyproxy listens on.
  public let port: Int
  /// The address it listens on: `127.0.0.1` or `::1`.
  public let host: String
  /// The fixture's temporary directory (configuration, log, pid).
  public let directory: TemporaryDirectory
  private let process: Mutex<Process?>

  private init(host: String, port: Int, directory: TemporaryDirectory, process: Process) {
    self.host = host
    self.port = port
    self.directory = directory
    self.process = Mutex(process)
  }

  deinit {
    stop()
  }

  /// The proxy's URL, with `user:password@` when given.
  public func url(user: String? = nil, password: String? = nil) -> String {
    let credentials = user.map { "\($0):\(password ?? "")@" } ?? ""
    let address = host.contains(":") ? "[\(host)]" : host
    return "http://\(credentials)\(address):\(port)"
  }

  /// Starts tinyproxy, runs `body` with it, and stops it however `body` ends.
  public static func with<T>(
    host: String = "127.0.0.1", credentials: (user: String, password: String)? = nil,
    _ body: (TinyproxyFixture) async throws -> T
  ) async throws -> T {
    try await withFixture(
      start: { try start(host: host, credentials: credentials) }, stop: { $0.stop() }, body)
  }

  /// Starts tinyproxy on `host` (`127.0.0.1` or `::1`, accepting clients from that address
  /// only), demanding `credentials` when given, and waits until it accepts connections, on a
  /// free port (`startOnFreePort`), `port` when given.
  public static func start(
    host: String = "127.0.0.1", credentials: (user: String, password: String)? = nil,
    port: Int? = nil
  ) throws -> TinyproxyFixture {
    try FixtureError.requireExecutable(binary, name: "tinyproxy", package: "tinyproxy")
    return try startOnFreePort(first: port) { port in
      let directory = try TemporaryDirectory(prefix: "haul-tinyproxy")
      do {
        // tinyproxy may drop to another user when started as root: let it write its log.
        chmod(directory.path, 0o777)
        var lines = [
          "Port \(port)", "Listen \(host)", "Timeout 30", "MaxClients 64",
          "LogFile \"\(directory.file("tinyproxy.log"))\"", "LogLevel Info",
          "PidFile \"\(directory.file("tinyproxy.pid"))\"", "Allow \(host)",
          "ViaProxyName \"\(viaName)\"",
        ]
        if let credentials {
          lines.append("BasicAuth \(credentials.user) \(credentials.password)")
        }
        let configuration = directory.file("tinyproxy.conf")
        try (lines.joined(separator: "\n") + "\n").write(
          toFile: configuration, atomically: true, encoding: .utf8)
        let process = try Process.daemon(binary, ["-d", "-c", configuration])
        let fixture = TinyproxyFixture(
          host: host, port: port, directory: directory, process: process)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
          if process.hasExited { break }
          if process.wrotePidFile(directory.file("tinyproxy.pid")),
            host.contains(":") ? canConnectIPv6(port: port) : NginxFixture.canConnect(port: port)
          {
            return fixture
          }
          usleep(10_000)
        }
        fixture.stop()
        throw FixtureError("tinyproxy did not start listening on \(host) port \(port)")
      } catch {
        directory.remove()
        throw error
      }
    }
  }

  /// Whether something accepts connections on [::1]:`port`.
  private static func canConnectIPv6(port: Int) -> Bool {
    let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in6()
    address.sin6_family = sa_family_t(AF_INET6)
    address.sin6_port = UInt16(port).bigEndian
    address.sin6_addr = in6addr_loopback
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0
      }
    }
  }

  /// The requests tinyproxy received, in order, as `METHOD TARGET` (`GET http://...`,
  /// `CONNECT 127.0.0.1:443`).
  public func requests() -> [String] {
    let text = (try? String(contentsOfFile: directory.file("tinyproxy.log"), encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { line in
      guard let range = line.range(of: "): ", options: .backwards),
        line.contains("Request (file descriptor")
      else { return nil }
      let request = line[range.upperBound...]
      return request.split(separator: " ").prefix(2).joined(separator: " ")
    }
  }

  /// Stops tinyproxy (SIGTERM, SIGKILL after 0.5 s: it keeps no state worth a clean exit)
  /// and removes its directory. Idempotent.
  public func stop() {
    guard let process = process.take() else { return }
    process.stop(grace: 0.5)
    directory.remove()
  }
}
