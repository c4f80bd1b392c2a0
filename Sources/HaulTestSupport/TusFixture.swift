import Foundation
import Synchronization

/// A real tus 1.0 server for tests: aiohttp-tus (pip `aiohttp-tus`, installed by `make deps`)
/// run by `Tests/tus/tus_server.py` on a free 127.0.0.1 port, its creation endpoint at
/// `/files/`. Finished uploads land in `directory` under the name their `Upload-Metadata`
/// gives; the uploads' state is kept there too, so `restart()` brings back a server that
/// knows every upload the last one had. Without Python or aiohttp-tus, `start` throws: the
/// tests fail, they do not skip.
public final class TusFixture: Sendable {
  /// The port the server listens on (127.0.0.1).
  public let port: Int
  /// Where the server keeps finished files and its uploads' state.
  public let directory: TemporaryDirectory
  private let arguments: [String]
  private let process: Mutex<Process?>

  private init(port: Int, directory: TemporaryDirectory, arguments: [String]) {
    self.port = port
    self.directory = directory
    self.arguments = arguments
    self.process = Mutex(nil)
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

  /// Starts the server and waits until it accepts connections.
  public static func start(checksum: Bool = false, corrupt: Int = 0) throws -> TusFixture {
    let directory = try TemporaryDirectory(prefix: "haul-tus")
    var arguments = ["--checksum"].filter { _ in checksum }
    if corrupt > 0 { arguments += ["--corrupt", "\(corrupt)"] }
    let fixture = TusFixture(
      port: try NginxFixture.freePort(), directory: directory, arguments: arguments)
    do {
      try fixture.run()
    } catch {
      directory.remove()
      throw error
    }
    return fixture
  }

  /// The file an upload named `name` became, once finished.
  public func file(_ name: String) -> String { directory.file("files/" + name) }

  /// Stops the server (SIGTERM, then SIGKILL) and starts it again on the same port and
  /// state: a server restart in the middle of an upload.
  public func restart() throws {
    halt()
    try run()
  }

  /// Stops the server and removes its files.
  public func stop() {
    halt()
    directory.remove()
  }

  private func halt() {
    let running = process.withLock { process -> Process? in
      defer { process = nil }
      return process
    }
    running?.stop(grace: 3)
  }

  private func run() throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments =
      ["python3", Self.script, "\(port)", directory.file("files")] + arguments
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    let log = directory.file("tus.log")
    if !FileManager.default.fileExists(atPath: log) {
      _ = FileManager.default.createFile(atPath: log, contents: nil)
    }
    let handle = FileHandle(forWritingAtPath: log)
    handle?.seekToEndOfFile()
    process.standardError = handle
    do {
      try process.run()
    } catch {
      throw FixtureError("cannot run python3 \(Self.script): \(error)")
    }
    let deadline = Date().addingTimeInterval(30)
    while !NginxFixture.canConnect(port: port) {
      guard process.isRunning, Date() < deadline else {
        process.stop(grace: 3)
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        throw FixtureError(
          "the tus server did not start on 127.0.0.1:\(port) (install aiohttp-tus with"
            + " `make deps`): \(text.suffix(2000))")
      }
      usleep(50_000)
    }
    self.process.withLock { $0 = process }
  }
}
