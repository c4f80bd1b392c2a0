import Foundation
import HaulTestSupport
import Testing

/// A real `haul serve` started by a test: its state, socket and root in a temporary
/// directory, optionally a TCP listener on 127.0.0.1. Client commands run the built binary
/// with `--socket` pointing at it.
final class ServeDaemon: @unchecked Sendable {
  // @unchecked: the process and port are set by `start` and read by the test's one task.
  let directory: TemporaryDirectory
  let arguments: [String]
  let environment: [String: String]
  private(set) var process: RunningHaul?
  /// The TCP port, with `listen`.
  private(set) var port: Int?

  var socket: String { directory.file("run/haul.sock") }
  var state: String { directory.file("state") }
  var root: String { directory.file("root") }
  var token: String {
    (try? String(contentsOfFile: state + "/token", encoding: .utf8))?
      .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
  }

  /// Starts a daemon whose root is `root/` of `directory`, with `extra` arguments.
  init(
    in directory: TemporaryDirectory, listen: Bool = false, extra: [String] = [],
    environment: [String: String] = [:]
  ) throws {
    self.directory = directory
    self.environment = environment
    try FileManager.default.createDirectory(
      atPath: directory.file("root"), withIntermediateDirectories: true)
    arguments =
      [
        "serve", "--root", directory.file("root"), "--state-dir", directory.file("state"),
        "--socket", directory.file("run/haul.sock"),
      ] + (listen ? ["--listen", "127.0.0.1:0"] : []) + extra
    try start()
  }

  /// A test that failed before it stopped its daemon leaves none behind: a daemon holds
  /// locks and ports the tests after it would meet.
  deinit {
    if let process, process.isRunning { process.send(SIGKILL) }
  }

  /// Starts (or restarts) the daemon and waits until it says it is ready.
  func start() throws {
    let running = try HaulBinary.start(arguments, in: directory, environment: environment)
    process = running
    let deadline = Date().addingTimeInterval(120)
    while Date() < deadline {
      let log = (try? String(contentsOfFile: running.stderrPath, encoding: .utf8)) ?? ""
      if let range = log.range(of: "listening on http://127.0.0.1:") {
        port = Int(log[range.upperBound...].prefix { $0.isNumber })
      }
      if log.contains("ready on") { return }
      guard running.isRunning else { throw FixtureError("haul serve ended: \(log)") }
      usleep(20_000)
    }
    throw FixtureError("haul serve did not become ready")
  }

  /// Runs a client command (`add`, `jobs`...) against this daemon.
  func client(_ arguments: [String], stdin: String? = nil, timeout: Double = 120) async throws
    -> HaulResult
  {
    try await HaulBinary.run(
      [arguments[0], "--socket", socket] + arguments.dropFirst(), in: directory, stdin: stdin,
      timeout: timeout)
  }

  /// Queues `arguments` (`add`'s) and returns the job's id.
  func add(_ arguments: [String]) async throws -> String {
    let result = try await client(["add"] + arguments)
    #expect(result.status == 0, "\(result.stderr)")
    return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// The job as `status --json` prints it.
  func job(_ id: String) async throws -> [String: Any] {
    let result = try await client(["status", id, "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    return try jsonObject(result.stdout)
  }

  /// Polls job `id` until `condition` holds (at most `timeout` seconds).
  @discardableResult
  func until(_ id: String, timeout: Double = 180, _ condition: ([String: Any]) -> Bool)
    async throws -> [String: Any]
  {
    let deadline = Date().addingTimeInterval(timeout)
    var job = try await self.job(id)
    while !condition(job), Date() < deadline {
      try await Task.sleep(for: .milliseconds(100))
      job = try await self.job(id)
    }
    return job
  }

  /// `kill -9`s the daemon and waits for its end.
  func kill9() async throws {
    process?.send(SIGKILL)
    _ = try await process?.finish(timeout: 10)
  }

  /// Sends SIGTERM and returns how the daemon ended.
  func terminate() async throws -> HaulResult? {
    process?.send(SIGTERM)
    return try await process?.finish(timeout: 30)
  }

  /// One request over the TCP listener with curl: status, body.
  func tcp(
    _ method: String, _ path: String, headers: [String] = [], body: String? = nil,
    authorized: Bool = true
  ) throws -> (status: Int, body: String) {
    var arguments = ["-s", "-o", "-", "-w", "\n%{http_code}", "-X", method]
    if authorized { arguments += ["-H", "Authorization: Bearer \(token)"] }
    for header in headers { arguments += ["-H", header] }
    if let body { arguments += ["--data-binary", body] }
    arguments.append("http://127.0.0.1:\(port ?? 0)\(path)")
    let output = try Self.run("/usr/bin/curl", arguments)
    let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
    return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
  }

  /// Changes job `id`'s options (`PATCH /v1/jobs/ID` on the control socket, as a client
  /// library would); `options` is their JSON object's text.
  func patch(_ id: String, options: String) throws {
    let output = try Self.run(
      "/usr/bin/curl",
      [
        "-s", "-o", "/dev/null", "-w", "%{http_code}", "--unix-socket", socket, "-X", "PATCH",
        "--data-binary", "{\"options\": \(options)}", "http://localhost/v1/jobs/\(id)",
      ])
    #expect(output == "200", "PATCH answered \(output)")
  }

  /// The targets of the daemon's open descriptors (`/proc/PID/fd`) that lie under
  /// `folder` (itself included), once there are none or after a generous bound: a run's
  /// last objects may be released on another thread a moment after its job ended.
  func descriptors(under folder: String) async throws -> [String] {
    guard let pid = process?.process.processIdentifier else {
      throw FixtureError("the daemon was not started")
    }
    let root = URL(fileURLWithPath: folder).resolvingSymlinksInPath().path
    var found: [String] = []
    for _ in 0..<200 {
      // Throws when the daemon is gone: an empty list must mean a live daemon holds nothing.
      let names = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
      found = names.compactMap {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")
      }.filter { $0 == root || $0.hasPrefix(root + "/") }
      if found.isEmpty { return [] }
      try await Task.sleep(for: .milliseconds(50))
    }
    return found
  }

  /// The finished files in `folder` (no partial or hidden ones).
  static func filesInPlace(_ folder: String) -> Int {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    return names.filter { !$0.hasPrefix(".") && !$0.hasSuffix(".haul-partial") }.count
  }

  static func run(_ executable: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
  }
}

/// Runs python3 on PATH with `arguments` (a test's client script): its exit status, and its
/// output and errors together.
func python3(_ arguments: [String]) throws -> (status: Int32, output: String) {
  try runTool(["python3"] + arguments)
}

/// Runs the program `arguments[0]` (found on the PATH) with the rest as its arguments and
/// `environment` over the test's own; returns its exit status and its output and errors.
func runTool(_ arguments: [String], environment: [String: String] = [:]) throws -> (
  status: Int32, output: String
) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = arguments
  if !environment.isEmpty {
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
  }
  let pipe = Pipe()
  process.standardOutput = pipe
  process.standardError = pipe
  try process.run()
  let data = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
