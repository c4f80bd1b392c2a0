import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A server process that a fixture started on a port of 127.0.0.1, with the temporary folder
/// holding its files and logs: what the S3, proxy and tus fixtures keep of their server, its
/// start on a port it bound itself, and its stop.
struct LocalServer: Sendable {
  /// The port the server listens on (127.0.0.1).
  let port: Int
  let process: Process
  /// The server's folder, removed by `stop()`.
  let directory: TemporaryDirectory

  /// `http://127.0.0.1:PORT`, for `--s3-endpoint`.
  var endpoint: String { "http://127.0.0.1:\(port)" }

  /// What the tests' own servers (`Tests/botocore/s3_fault_proxy.py`, `Tests/tus/tus_server.py`)
  /// write to their standard error before the port they listen on.
  static let scriptAnnouncement = "listening on http://127.0.0.1:"

  /// Starts a server that binds the port it is given, 0 letting the kernel pick one, and
  /// once it listens writes the port it bound to its standard error after `announcement`
  /// (`Running on http://127.0.0.1:`): `command` is its binary and arguments for a port, run
  /// with its standard error appended to `log`.
  ///
  /// The port is learnt from the server's own log, never chosen ahead, so no other test's
  /// server can take it between the choice and the bind and be talked to instead. A start on
  /// `port` (one another server holds, say) whose process exits before it names its port is
  /// tried again on port 0, three starts in all, unless `keepsPort` (a restart, whose clients
  /// know the port). Should the last start exit, or 60 s pass, it is stopped, `directory`
  /// removed, and the error names the server (`name`) and ends with the end of `log`.
  static func start(
    _ name: String, directory: TemporaryDirectory, log: String, announcement: String,
    port: Int = 0, keepsPort: Bool = false, command: (Int) -> [String]
  ) throws -> LocalServer {
    var reason = "exited"
    for attempt in 0..<(keepsPort ? 1 : 3) {
      var info = stat()
      let offset = stat(log, &info) == 0 ? Int(info.st_size) : 0
      let arguments = command(attempt == 0 ? port : 0)
      let process: Process
      do {
        process = try Process.daemon(arguments[0], Array(arguments.dropFirst()), errors: log)
      } catch {
        directory.remove()
        throw FixtureError("cannot run \(name), \(arguments[0]): \(error)")
      }
      let deadline = Date().addingTimeInterval(60)
      while !process.hasExited, Date() < deadline {
        if let bound = announcedPort(in: log, after: offset, announcement: announcement),
          NginxFixture.canConnect(port: bound)
        {
          return LocalServer(port: bound, process: process, directory: directory)
        }
        usleep(50_000)
      }
      let exited = process.hasExited
      process.stop(grace: 3)
      guard exited else {
        reason = "named no port within 60 s"
        break
      }
    }
    let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    directory.remove()
    throw FixtureError("\(name) \(reason) before it listened on 127.0.0.1: \(text.suffix(2000))")
  }

  /// The port written after the first `announcement` of the `log` file past byte `offset`,
  /// once a character follows its digits (a line still being written names none yet).
  static func announcedPort(in log: String, after offset: Int, announcement: String) -> Int? {
    guard let handle = FileHandle(forReadingAtPath: log) else { return nil }
    defer { try? handle.close() }
    guard (try? handle.seek(toOffset: UInt64(offset))) != nil,
      let data = try? handle.readToEnd()
    else { return nil }
    let text = String(decoding: data, as: UTF8.self)
    guard let start = text.range(of: announcement)?.upperBound else { return nil }
    let digits = text[start...].prefix { $0.isASCII && $0.isNumber }
    return digits.endIndex < text.endIndex ? Int(digits) : nil
  }

  /// Stops the server (SIGTERM, SIGKILL after 3 s) and removes its folder.
  func stop() {
    process.stop(grace: 3)
    directory.remove()
  }
}
