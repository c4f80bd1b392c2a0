import Foundation
import Synchronization

/// A Hugging Face Hub for tests: `Tests/CLITests/hf/hub_server.py`, the Hub's revision, tree
/// and resolve URLs on one 127.0.0.1 port and the storage host its LFS files redirect to on
/// another, which refuses (and logs) any request that carries the Hub token. Its
/// repositories: `org/model` and `datasets/org/data` (public), `org/private` (`token` only),
/// `org/gated` (its files refused), `org/corrupt` (bytes that match no listed digest).
/// Without Python, `start` throws: the tests fail, they do not skip.
public final class HFHubFixture: Sendable {
  /// The Hub's port, for `HF_ENDPOINT`.
  public let port: Int
  /// The storage host's port.
  public let storagePort: Int
  /// The server's folder: the repositories' files under `srv/repos/`, its logs.
  public let directory: TemporaryDirectory
  private let process: Mutex<Process?>

  /// The token that opens `org/private`.
  public static let token = "hf_test_token_0123456789"

  /// `http://127.0.0.1:PORT`, the Hub's address.
  public var endpoint: String { "http://127.0.0.1:\(port)" }

  /// The script beside the CLI tests.
  static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Tests/CLITests/hf/hub_server.py").path

  private init(server: LocalServer, storagePort: Int) {
    self.port = server.port
    self.storagePort = storagePort
    self.directory = server.directory
    self.process = Mutex(server.process)
  }

  /// Starts a Hub, runs `body` with it, and stops it however `body` ends.
  public static func with<T>(_ body: (HFHubFixture) async throws -> T) async throws -> T {
    try await withFixture(start: { try start() }, stop: { $0.stop() }, body)
  }

  /// Starts the server on ports the kernel picks, learnt from its standard error.
  public static func start() throws -> HFHubFixture {
    let directory = try TemporaryDirectory(prefix: "haul-hf")
    let log = directory.file("hub.log")
    let server = try LocalServer.start(
      "the Hub test server", directory: directory, log: log,
      announcement: LocalServer.scriptAnnouncement
    ) { port in
      ["/usr/bin/env", "python3", script, "\(port)", directory.file("srv")]
    }
    guard
      let storage = LocalServer.announcedPort(
        in: log, after: 0, announcement: "storage on http://127.0.0.1:")
    else {
      server.process.stop(grace: 3)
      directory.remove()
      throw FixtureError("the Hub test server named no storage port")
    }
    return HFHubFixture(server: server, storagePort: storage)
  }

  /// The file `path` of the repository `repository` (`models/org/model`) as the Hub holds it.
  public func file(_ repository: String, _ path: String) -> String {
    directory.file("srv/repos/\(repository)/\(path)")
  }

  /// The paths of every file the repository `repository` holds, sorted.
  public func files(_ repository: String) -> [String] {
    let root = directory.file("srv/repos/\(repository)")
    let all = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
    return all.filter { path in
      var isFolder: ObjCBool = false
      return FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isFolder)
        && !isFolder.boolValue
    }.sorted()
  }

  /// The requests that reached the storage host with an `Authorization` header (refused).
  public var storageRequestsWithToken: [String] { lines("srv/storage-auth.log") }

  /// Every request, as `PORT METHOD PATH auth|- RANGE|-`.
  public var requests: [String] { lines("srv/requests.log") }

  private func lines(_ name: String) -> [String] {
    ((try? String(contentsOfFile: directory.file(name), encoding: .utf8)) ?? "")
      .split(separator: "\n").map(String.init)
  }

  /// Stops the server and removes its files.
  public func stop() {
    process.take()?.stop(grace: 3)
    directory.remove()
  }
}
