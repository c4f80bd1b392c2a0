import Foundation

/// A real S3 API server for tests: moto in server mode (`python3 -m moto.server`, pip
/// `moto[server]`, installed by `make deps`) on a 127.0.0.1 port it binds itself, with
/// signature checking on.
///
/// `start` creates the buckets and an IAM user with an access key, then turns moto's
/// authentication on (`Tests/botocore/moto_setup.py`): from then on every request must be
/// signed with that key, and a wrong signature is answered 403. Without Python or moto,
/// `start` throws: the tests fail, they do not skip.
public final class MotoFixture: Sendable {
  /// The access key moto knows.
  public let accessKeyID: String
  /// Its secret.
  public let secretAccessKey: String
  private let server: LocalServer

  /// The port moto listens on (127.0.0.1).
  public var port: Int { server.port }
  /// `http://127.0.0.1:PORT`, for `--s3-endpoint`.
  public var endpoint: String { server.endpoint }

  private init(server: LocalServer, accessKeyID: String, secretAccessKey: String) {
    self.server = server
    self.accessKeyID = accessKeyID
    self.secretAccessKey = secretAccessKey
  }

  /// The scripts beside the tests.
  static let setupScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Tests/botocore/moto_setup.py").path

  /// Starts moto with `buckets` holding `objects` (bucket, key: each body is the key's bytes
  /// and a line feed), runs `body` with it, and stops it however `body` ends.
  /// `checksSignatures: false` leaves moto's signature checking off, for requests moto
  /// cannot check (see `Tests/botocore/moto_setup.py`, `--open`).
  public static func with<T>(
    buckets: [String], objects: [(bucket: String, key: String)] = [],
    checksSignatures: Bool = true, _ body: (MotoFixture) async throws -> T
  ) async throws -> T {
    try await withFixture(
      start: { try start(buckets: buckets, objects: objects, checksSignatures: checksSignatures) },
      stop: { $0.stop() }, body)
  }

  /// Starts moto, waits until it answers, creates `buckets`, `objects` and the key, and
  /// turns signature checking on. The objects are put before it is on, with botocore, so
  /// their keys may be any moto stores (`..` segments, which haul refuses to send). moto
  /// binds `port`, 0 by default (a port the kernel picks, which its log names:
  /// `LocalServer.start`).
  public static func start(
    buckets: [String], objects: [(bucket: String, key: String)] = [],
    checksSignatures: Bool = true, port: Int = 0
  ) throws -> MotoFixture {
    let directory = try TemporaryDirectory(prefix: "haul-moto")
    let log = directory.file("moto.log")
    let server = try LocalServer.start(
      "moto (install it with `make deps`)", directory: directory, log: log,
      announcement: "Running on http://127.0.0.1:", port: port
    ) { port in
      ["/usr/bin/env", "python3", "-m", "moto.server", "-H", "127.0.0.1", "-p", "\(port)"]
    }
    let port = server.port
    func fail(_ reason: String) -> FixtureError {
      let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
      server.stop()
      return FixtureError("\(reason) (install it with `make deps`): \(text.suffix(2000))")
    }
    let setup = Process()
    setup.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    setup.arguments =
      ["python3", setupScript] + (checksSignatures ? [] : ["--open"]) + ["\(port)"] + buckets
    let output = Pipe()
    setup.standardOutput = output
    setup.standardError = FileHandle(forWritingAtPath: log)
    let input = Pipe()
    setup.standardInput = input
    try setup.run()
    var lines = Data()
    for object in objects {
      lines.append(try JSONSerialization.data(withJSONObject: [object.bucket, object.key]))
      lines.append(0x0A)
    }
    input.fileHandleForWriting.write(lines)
    try input.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    guard setup.waitForExit() == 0,
      let keys = try? JSONSerialization.jsonObject(with: data) as? [String: String],
      let id = keys["access_key"], let secret = keys["secret_key"]
    else { throw fail("\(setupScript) could not prepare moto") }
    return MotoFixture(server: server, accessKeyID: id, secretAccessKey: secret)
  }

  /// The environment of a haul run against this moto (`awsTestEnvironment`): its key, or
  /// another `secret` for a run that must be refused.
  public func environment(home: String, secret: String? = nil) -> [String: String] {
    awsTestEnvironment(
      accessKeyID: accessKeyID, secretAccessKey: secret ?? secretAccessKey, home: home)
  }

  /// moto's request log so far: one line per answered request
  /// (`"PUT /bucket/key?partNumber=1&uploadId=… HTTP/1.1" 200 -`).
  public func requestLog() -> String {
    (try? String(contentsOfFile: server.directory.file("moto.log"), encoding: .utf8)) ?? ""
  }

  /// Stops moto (SIGTERM, SIGKILL after 3 s) and removes its directory.
  public func stop() {
    server.stop()
  }
}
