import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A server process that a fixture started on a port of 127.0.0.1, with the temporary folder
/// holding its files and logs: what the S3 fixtures keep of their server, the wait until it
/// listens, and its stop.
struct LocalServer: Sendable {
  /// The port the server listens on (127.0.0.1).
  let port: Int
  let process: Process
  /// The server's folder, removed by `stop()`.
  let directory: TemporaryDirectory

  /// `http://127.0.0.1:PORT`, for `--s3-endpoint`.
  var endpoint: String { "http://127.0.0.1:\(port)" }

  /// Waits up to 30 s until `process` accepts connections on `port`. Should it exit or the
  /// time run out first, it is stopped, `directory` removed, and the error names the server
  /// (`name`) and ends with the end of its `log` file, when there is one.
  static func listening(
    _ process: Process, port: Int, directory: TemporaryDirectory, name: String,
    log: String? = nil
  ) throws -> LocalServer {
    let deadline = Date().addingTimeInterval(30)
    while !NginxFixture.canConnect(port: port) {
      guard process.isRunning, Date() < deadline else {
        process.stop(grace: 3)
        let text = log.map { (try? String(contentsOfFile: $0, encoding: .utf8)) ?? "" }
        directory.remove()
        throw FixtureError(
          "\(name) did not start listening on 127.0.0.1:\(port)"
            + (text.map { ": \($0.suffix(2000))" } ?? ""))
      }
      usleep(50_000)
    }
    return LocalServer(port: port, process: process, directory: directory)
  }

  /// Stops the server (SIGTERM, SIGKILL after 3 s) and removes its folder.
  func stop() {
    process.stop(grace: 3)
    directory.remove()
  }
}
