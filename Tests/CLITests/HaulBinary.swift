import Foundation
import HaulTestSupport
import Testing

/// What one run of the `haul` binary produced.
struct HaulResult {
  var status: Int32
  var stdout: String
  var stderr: String
  /// When the process was seen to exit, on a thread of its own and by the kernel's word
  /// (`Process.end`): a test timing haul's exit measures up to here, not up to
  /// when the busy test pool or Foundation got round to it.
  var ended = Date()

  /// The `--events` lines, parsed.
  func events() throws -> [[String: Any]] {
    try stdout.split(separator: "\n").map { try jsonObject(String($0)) }
  }
}

/// Runs the built `haul` binary as a subprocess: the CLI tests test what users run.
///
/// The binary is found next to the test bundle (`.build/<triple>/debug/haul`) or in the
/// package's `.build/debug/haul`; build it with `swift build` before `swift test`.
enum HaulBinary {
  static let path: String = {
    let candidates = [
      URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("haul").path,
      Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("haul").path,
      URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/debug/haul").path,
    ]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
      ?? candidates.last!
  }()

  /// Starts haul with `arguments`; its output goes to files in `directory`, or standard
  /// output to `stdout` when it is given (which the test then reads itself). `environment`
  /// is added to (and overrides) the test's own.
  static func start(
    _ arguments: [String], in directory: TemporaryDirectory, stdin: String? = nil,
    environment: [String: String] = [:], stdout: Pipe? = nil
  ) throws -> RunningHaul {
    guard FileManager.default.isExecutableFile(atPath: path) else {
      throw FixtureError("the haul binary is missing at \(path): run `swift build` first")
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.currentDirectoryURL = directory.url
    if !environment.isEmpty {
      process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    let id = UUID().uuidString
    let out = directory.file(".stdout-\(id)")
    let err = directory.file(".stderr-\(id)")
    _ = FileManager.default.createFile(atPath: out, contents: nil)
    _ = FileManager.default.createFile(atPath: err, contents: nil)
    process.standardOutput = try stdout ?? FileHandle(forWritingTo: URL(fileURLWithPath: out))
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
    if let stdin {
      let input = directory.file(".stdin-\(id)")
      _ = FileManager.default.createFile(atPath: input, contents: Data(stdin.utf8))
      process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: input))
    } else {
      process.standardInput = FileHandle.nullDevice
    }
    let running = RunningHaul(process: process, stdoutPath: out, stderrPath: err)
    try process.run()
    // The child holds the pipe's writing end; the reader sees its end once haul exits.
    try? stdout?.fileHandleForWriting.close()
    return running
  }

  /// Runs haul with `arguments` to the end (killed after `timeout` seconds).
  static func run(
    _ arguments: [String], in directory: TemporaryDirectory, stdin: String? = nil,
    environment: [String: String] = [:], timeout: Double = 120
  ) async throws -> HaulResult {
    try await start(arguments, in: directory, stdin: stdin, environment: environment)
      .finish(timeout: timeout)
  }
}

/// A haul process that has been started.
struct RunningHaul: @unchecked Sendable {
  let process: Process
  let stdoutPath: String
  let stderrPath: String

  /// Whether haul is still running, by the kernel's word (`Process.end`):
  /// `process.isRunning` can stay `true` for many seconds after haul has exited.
  var isRunning: Bool { !process.hasExited }

  /// Sends `signal` (SIGINT, say) to the process.
  func send(_ signal: Int32) {
    kill(process.processIdentifier, signal)
  }

  /// Sends `signal` once `ready` holds (polled every 50 ms for at most `timeout` seconds) and
  /// `settle` seconds more have passed, then waits for the process to end (as `finish`), all
  /// on a thread of its own (`onOwnThread`): the test pool can be kept busy by other tests
  /// for longer than haul runs, which would send the signal late or see the exit late.
  /// Returns whether `ready` held, when the signal went, and the run's result.
  func interrupt(
    _ signal: Int32, settle: Double = 0, timeout: Double = 20,
    once ready: @escaping @Sendable () -> Bool
  ) async throws -> (ready: Bool, sent: Date, result: HaulResult) {
    let (held, sent, end) = try await onOwnThread { [self] in
      let deadline = Date().addingTimeInterval(timeout)
      var held = ready()
      while !held && Date() < deadline {
        usleep(50_000)
        held = ready()
      }
      if held { usleep(useconds_t(settle * 1e6)) }
      send(signal)
      return (held, Date(), awaitEnd(timeout: 30))
    }
    return (held, sent, collect(end, timeout: 30))
  }

  /// Waits for the process to end (SIGKILL after `timeout` seconds) and collects its output.
  /// The wait runs on a thread of its own (`onOwnThread`), so the exit time it records does
  /// not depend on the test pool's other work, nor on when Foundation notices
  /// (`Process.end`).
  func finish(timeout: Double = 120) async throws -> HaulResult {
    let end = try await onOwnThread { [self] in awaitEnd(timeout: timeout) }
    return collect(end, timeout: timeout)
  }

  /// Blocks until the process has ended, killing it after `timeout` seconds: its status,
  /// when the end was seen, and whether it had to be killed.
  private func awaitEnd(timeout: Double) -> (status: Int32, ended: Date, killed: Bool) {
    let deadline = Date().addingTimeInterval(timeout)
    var killed = false
    while true {
      if let status = process.end?.status { return (status, Date(), killed) }
      if !killed, Date() > deadline {
        process.terminate()
        kill(process.processIdentifier, SIGKILL)
        killed = true
      }
      usleep(5_000)
    }
  }

  private func collect(_ end: (status: Int32, ended: Date, killed: Bool), timeout: Double)
    -> HaulResult
  {
    if end.killed { Issue.record("haul did not end within \(timeout) s") }
    return HaulResult(
      status: end.status,
      stdout: (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "",
      stderr: (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "", ended: end.ended)
  }
}

/// Parses `text` as one JSON object.
func jsonObject(_ text: String) throws -> [String: Any] {
  let value = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [])
  return try #require(value as? [String: Any], "not a JSON object: \(text)")
}

/// Parses the JSON object in the file at `path`.
func jsonFile(_ path: String) throws -> [String: Any] {
  try jsonObject(String(contentsOfFile: path, encoding: .utf8))
}

/// One manifest line as JSON text, fields in a stable order.
func manifestLine(_ fields: [String: Any]) throws -> String {
  let data = try JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])
  return String(decoding: data, as: UTF8.self)
}

/// Writes `lines` as a manifest file `name` in `directory` and returns its path.
@discardableResult
func writeManifest(
  _ lines: [String], named name: String = "manifest.jsonl", in directory: TemporaryDirectory
) throws -> String {
  let path = directory.file(name)
  try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
  return path
}

/// The transports every end-to-end case runs through.
let transports = ["curl", "urlsession"]
