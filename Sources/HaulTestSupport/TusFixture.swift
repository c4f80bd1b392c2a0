import Foundation
import Synchronization

/// A real tus 1.0 server for tests: aiohttp-tus (pip `aiohttp-tus`, installed by `make deps`)
/// run by `Tests/tus/tus_server.py` on a 127.0.0.1 port it binds, its creation endpoint at
/// `/files/`. Finished uploads land in `directory` under the name their `Upload-Metadata`
/// gives; the uploads' state is kept there too, so `restart()` brings back a server that
/// knows every upload the last one had. Without Python or aiohttp-tus, `start` throws: the
/// tests fail, they do not skip.
public final class TusFixture: Sendable {
  /// The port the server listens on (127.0.0.1), which it bound itself on its first start.
  public let port: Int
  /// Where the server keeps finished files and its uploads' state.
  public let directory: TemporaryDirectory
  private let arguments: [String]
  private let process: Mutex<Process?>

  private init(server: LocalServer, arguments: [String]) {
    self.port = server.port
    self.directory = server.directory
    self.arguments = arguments
    self.process = Mutex(server.process)
  }

  /// The script beside the tests.
  static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Tests/tus/tus_server.py").path

  /// The creation endpoint.
  public var creationURL: URL { URL(string: "http://127.0.0.1:\(port)/files/")! }

  /// Starts a server, runs `body` with it, and stops it however `body` ends. `checksum`
  /// offers the checksum extension (sha1); `corrupt` fails that many checked PATCH requests
  /// with 460, as damaged bodies would.
  public static func with<T>(
    checksum: Bool = false, corrupt: Int = 0, _ body: (TusFixture) async throws -> T
  ) async throws -> T {
    try await withFixture(
      start: { try start(checksum: checksum, corrupt: corrupt) }, stop: { $0.stop() }, body)
  }

  /// Starts the server and waits until it accepts connections, on a port the kernel picks
  /// (`port` 0) or on `port`, learnt from what it writes to its standard error
  /// (`LocalServer.start`).
  public static func start(checksum: Bool = false, corrupt: Int = 0, port: Int = 0) throws
    -> TusFixture
  {
    let directory = try TemporaryDirectory(prefix: "haul-tus")
    var arguments = ["--checksum"].filter { _ in checksum }
    if corrupt > 0 { arguments += ["--corrupt", "\(corrupt)"] }
    return TusFixture(
      server: try run(in: directory, arguments: arguments, port: port, keepsPort: false),
      arguments: arguments)
  }

  /// The file an upload named `name` became, once finished.
  public func file(_ name: String) -> String { directory.file("files/" + name) }

  /// Stops the server (SIGTERM, then SIGKILL) and starts it again on the same port and
  /// state: a server restart in the middle of an upload.
  public func restart() throws {
    halt()
    let server = try Self.run(in: directory, arguments: arguments, port: port, keepsPort: true)
    process.withLock { $0 = server.process }
  }

  /// Stops the server and removes its files.
  public func stop() {
    halt()
    directory.remove()
  }

  private func halt() {
    process.take()?.stop(grace: 3)
  }

  private static func run(
    in directory: TemporaryDirectory, arguments: [String], port: Int, keepsPort: Bool
  ) throws -> LocalServer {
    try LocalServer.start(
      "the tus server (install aiohttp-tus with `make deps`)", directory: directory,
      log: directory.file("tus.log"), announcement: LocalServer.scriptAnnouncement, port: port,
      keepsPort: keepsPort
    ) { port in
      ["/usr/bin/env", "python3", script, "\(port)", directory.file("files")] + arguments
    }
  }
}
