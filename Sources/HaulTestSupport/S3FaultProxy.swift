import Foundation

/// A reverse proxy in front of an S3 API server of the tests (`Tests/botocore/s3_fault_proxy.py`)
/// that fails `CompleteMultipartUpload` on purpose and holds the first part uploads until
/// several are in flight at once; it logs every request with the part uploads in flight when
/// it arrived. The upstream still checks SigV4: the proxy forwards the client's `Host`.
public final class S3FaultProxy: Sendable {
  private let server: LocalServer

  /// The port the proxy listens on (127.0.0.1).
  public var port: Int { server.port }
  /// `http://127.0.0.1:PORT`, for `--s3-endpoint`.
  public var endpoint: String { server.endpoint }

  private init(server: LocalServer) {
    self.server = server
  }

  static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Tests/botocore/s3_fault_proxy.py").path

  /// Starts the proxy before the server on `upstream` (a port of 127.0.0.1), failing the
  /// first `failedCompletions` completions (all of them when negative) and holding the first
  /// `barrier` part uploads until that many are in flight; runs `body`, stops it after.
  public static func with<T>(
    upstream: Int, failedCompletions: Int = 0, barrier: Int = 0,
    _ body: (S3FaultProxy) async throws -> T
  ) async throws -> T {
    try await withFixture(
      start: {
        try start(upstream: upstream, failedCompletions: failedCompletions, barrier: barrier)
      },
      stop: { $0.stop() }, body)
  }

  /// Starts the proxy and waits until it answers, on a port the kernel picks (`port` 0) or
  /// on `port`, learnt from what it writes to its standard error (`LocalServer.start`).
  public static func start(
    upstream: Int, failedCompletions: Int, barrier: Int, port: Int = 0
  ) throws
    -> S3FaultProxy
  {
    let directory = try TemporaryDirectory(prefix: "haul-s3-proxy")
    let server = try LocalServer.start(
      "the S3 fault proxy", directory: directory, log: directory.file("proxy.log"),
      announcement: LocalServer.scriptAnnouncement, port: port
    ) { port in
      [
        "/usr/bin/env", "python3", script, "\(port)", "\(upstream)", "\(failedCompletions)",
        "\(barrier)", directory.file("requests.log"),
      ]
    }
    return S3FaultProxy(server: server)
  }

  /// One request the proxy answered.
  public struct Request: Sendable, Hashable {
    public var method: String
    /// The path and query as sent.
    public var target: String
    public var status: Int
    /// Part uploads in flight when this request arrived (itself included; 0 for others).
    public var partsInFlight: Int
  }

  /// Every request answered so far, in the order the answers went out.
  public func requests() -> [Request] {
    let log = server.directory.file("requests.log")
    let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { line in
      let fields = line.split(separator: " ")
      guard fields.count == 4, let status = Int(fields[2]), let inFlight = Int(fields[3]) else {
        return nil
      }
      return Request(
        method: String(fields[0]), target: String(fields[1]), status: status,
        partsInFlight: inFlight)
    }
  }

  /// Stops the proxy (SIGTERM, SIGKILL after 3 s) and removes its folder.
  public func stop() {
    server.stop()
  }
}
