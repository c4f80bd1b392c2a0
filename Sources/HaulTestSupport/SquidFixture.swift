import Foundation
import Synchronization

/// The real squid (`/usr/sbin/squid`) as an HTTPS proxy: clients speak TLS to the proxy
/// itself (`https_port`), for tests of `https://` proxy URLs. It listens on a free 127.0.0.1
/// port with a fresh self-signed certificate for `127.0.0.1` (`certificatePath`, to trust as
/// an extra CA) and a throwaway configuration in a temporary directory, forwards plain http
/// requests, tunnels `CONNECT` to any port, and caches nothing.
///
/// Its access log (`requests()`) lists every request it received, so tests can tell whether a
/// request went through it. squid runs in the foreground (`-N`) as this process's child;
/// `stop()` ends it and removes the directory; use `SquidFixture.with { }`. A missing squid
/// is an error naming the package to install, never a silent skip.
public final class SquidFixture: Sendable {
  /// Where Debian installs squid.
  public static let binary = "/usr/sbin/squid"

  /// The port squid accepts TLS connections on (127.0.0.1).
  public let port: Int
  /// The fixture's temporary directory (configuration, certificate, logs, pid).
  public let directory: TemporaryDirectory
  /// The certificate the proxy presents (PEM, self-signed: trust it as an extra CA).
  public var certificatePath: String { directory.file("cert.pem") }
  private let process: Mutex<Process?>

  private init(port: Int, directory: TemporaryDirectory, process: Process) {
    self.port = port
    self.directory = directory
    self.process = Mutex(process)
  }

  deinit {
    stop()
  }

  /// The proxy's URL, `https://127.0.0.1:PORT`.
  public func url() -> String { "https://127.0.0.1:\(port)" }

  /// Starts squid, runs `body` with it, and stops it however `body` ends.
  public static func with<T>(_ body: (SquidFixture) async throws -> T) async throws -> T {
    try await withFixture(start: { try start() }, stop: { $0.stop() }, body)
  }

  /// Whether squid's log says it accepts connections on its port (`Accepting HTTPS Socket
  /// connections at … local=127.0.0.1:PORT`), which it writes once the port is bound: a
  /// connection alone could reach another test's server that took the port.
  private func logSaysAccepting() -> Bool {
    let log = (try? String(contentsOfFile: directory.file("cache.log"), encoding: .utf8)) ?? ""
    let local = "local=127.0.0.1:\(port) "
    return log.split(separator: "\n").contains {
      $0.contains("Accepting") && $0.contains(local)
    }
  }

  /// Starts squid and waits until it accepts connections, on a free port
  /// (`startOnFreePort`), `port` when given.
  public static func start(port: Int? = nil) throws -> SquidFixture {
    try FixtureError.requireExecutable(binary, name: "squid", package: "squid")
    return try startOnFreePort(first: port) { port in
      let directory = try TemporaryDirectory(prefix: "haul-squid")
      do {
        // squid started as root writes its logs as the `proxy` user.
        chmod(directory.path, 0o777)
        try NginxFixture.makeCertificate(in: directory)
        chmod(directory.file("key.pem"), 0o644)
        let lines = [
          "https_port 127.0.0.1:\(port) tls-cert=\(directory.file("cert.pem"))"
            + " tls-key=\(directory.file("key.pem"))",
          "acl loopback src 127.0.0.1/32", "http_access allow loopback", "http_access deny all",
          "cache deny all", "strip_query_terms off",
          "access_log stdio:\(directory.file("access.log"))",
          "cache_log \(directory.file("cache.log"))", "cache_store_log none",
          "pid_filename \(directory.file("squid.pid"))", "coredump_dir \(directory.path)",
          "pinger_enable off", "shutdown_lifetime 0 seconds",
        ]
        let configuration = directory.file("squid.conf")
        try (lines.joined(separator: "\n") + "\n").write(
          toFile: configuration, atomically: true, encoding: .utf8)
        let process = try Process.daemon(binary, ["-N", "-f", configuration])
        let fixture = SquidFixture(port: port, directory: directory, process: process)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
          if process.hasExited { break }
          if fixture.logSaysAccepting(), NginxFixture.canConnect(port: port) { return fixture }
          usleep(20_000)
        }
        let log = (try? String(contentsOfFile: directory.file("cache.log"), encoding: .utf8)) ?? ""
        fixture.stop()
        throw FixtureError(
          "squid did not start listening on 127.0.0.1:\(port): \(log.suffix(500))")
      } catch {
        directory.remove()
        throw error
      }
    }
  }

  /// The requests squid logged, in order, as `METHOD TARGET` (`GET http://...`,
  /// `CONNECT 127.0.0.1:443`); connections that ended before a request (a readiness probe,
  /// a refused handshake), which squid logs with method `-`, are left out.
  public func requests() -> [String] {
    let text = (try? String(contentsOfFile: directory.file("access.log"), encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { line in
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      return fields.count > 6 && fields[5] != "-" ? "\(fields[5]) \(fields[6])" : nil
    }
  }

  /// Stops squid (SIGTERM, SIGKILL after 0.5 s: it keeps no state worth a clean exit) and
  /// removes its directory. Idempotent.
  public func stop() {
    guard let process = process.take() else { return }
    process.stop(grace: 0.5)
    directory.remove()
  }
}
