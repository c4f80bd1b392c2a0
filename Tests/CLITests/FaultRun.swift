import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// One run of the binary over a manifest, with its report read back by manifest line: what
/// the fault, disk, path and crash suites assert on.
struct FaultRun {
  var result: HaulResult
  var transfers: [Int: [String: Any]]
  /// The report's `summary` object (empty when it has none).
  var summary: [String: Any]
  var events: [[String: Any]]

  /// Reads `report.json` in `directory` (and the `--events` lines) after `result`.
  init(
    _ result: HaulResult, reportIn directory: TemporaryDirectory, named name: String = "report.json"
  ) throws {
    self.result = result
    let report = try jsonFile(directory.file(name))
    let list = try #require(report["transfers"] as? [[String: Any]])
    var byLine: [Int: [String: Any]] = [:]
    for transfer in list { byLine[transfer["line"] as? Int ?? 0] = transfer }
    transfers = byLine
    summary = report["summary"] as? [String: Any] ?? [:]
    events = (try? result.events()) ?? []
  }

  func status(_ line: Int) -> String? { transfers[line]?["status"] as? String }
  func attempts(_ line: Int) -> Int? { transfers[line]?["attempts"] as? Int }
  func code(_ line: Int) -> String? {
    (transfers[line]?["error"] as? [String: Any])?["code"] as? String
  }

  /// The `retry` events of `line`, in order.
  func retries(_ line: Int) -> [[String: Any]] {
    events.filter { $0["type"] as? String == "retry" && $0["line"] as? Int == line }
  }

  /// The `delay`s of `line`'s retry events.
  func delays(_ line: Int) -> [Double] { retries(line).compactMap { $0["delay"] as? Double } }

  /// A one-line account of `line`, for failure messages.
  func describe(_ line: Int) -> String {
    "line \(line): \(transfers[line].map { "\($0)" } ?? "absent"); stderr: \(result.stderr)"
  }
}

/// A manifest line for `/data/<name>` on `server` saved as `path` (default `<name>.bin`), with
/// its `size` and `sha256` unless told otherwise.
func dataLine(
  _ server: FaultServer, _ name: String, size: Int64, seed: UInt64,
  options: [String: String] = [:], path: String? = nil, declareSize: Bool = true,
  declareDigest: Bool = true
) throws -> String {
  var fields: [String: Any] = [
    "url": server.dataURL(name, size: size, seed: seed, options: options).absoluteString,
    "path": path ?? "\(name).bin",
  ]
  if declareSize { fields["size"] = size }
  if declareDigest { fields["sha256"] = TestContent.sha256(seed: seed, count: size) }
  return try manifestLine(fields)
}

/// The arguments of `haul run manifest.jsonl -o out` with a report, events and `transport`.
func runArguments(_ transport: String, _ extra: [String] = []) -> [String] {
  [
    "run", "manifest.jsonl", "-o", "out", "--report", "report.json", "--events", "--transport",
    transport,
  ] + extra
}

/// Whether the file at `path` holds exactly the first `size` bytes of content `seed`.
func holdsContent(_ path: String, seed: UInt64, size: Int64) -> Bool {
  FileDigest(path: path)
    == FileDigest(length: size, sha256: TestContent.sha256(seed: seed, count: size))
}

/// Whether anything (a file, folder or symlink, even a dangling one) is at `path`.
func exists(_ path: String) -> Bool {
  var info = stat()
  return lstat(path, &info) == 0
}

/// The size of the file at `path` (0 when absent).
func fileSize(_ path: String) -> Int64 {
  var info = stat()
  return lstat(path, &info) == 0 ? Int64(info.st_size) : 0
}

/// Runs `/bin/sh -c script` in `directory`, with `$HAUL` set to the binary: for runs that need
/// a umask, a resource limit or a mount namespace of their own.
func runShell(_ script: String, in directory: TemporaryDirectory, timeout: Double = 120)
  async throws -> HaulResult
{
  guard FileManager.default.isExecutableFile(atPath: HaulBinary.path) else {
    throw FixtureError("the haul binary is missing at \(HaulBinary.path): run `swift build` first")
  }
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/bin/sh")
  process.arguments = ["-c", script]
  process.currentDirectoryURL = directory.url
  var environment = ProcessInfo.processInfo.environment
  environment["HAUL"] = HaulBinary.path
  process.environment = environment
  let id = UUID().uuidString
  let out = directory.file(".stdout-\(id)")
  let err = directory.file(".stderr-\(id)")
  _ = FileManager.default.createFile(atPath: out, contents: nil)
  _ = FileManager.default.createFile(atPath: err, contents: nil)
  process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
  process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
  process.standardInput = FileHandle.nullDevice
  let running = RunningHaul(process: process, stdoutPath: out, stderrPath: err)
  try process.run()
  return try await running.finish(timeout: timeout)
}

/// `value` quoted for `/bin/sh`.
func shellQuoted(_ value: String) -> String {
  "'" + value.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

/// Polls `condition` every `interval` seconds on a thread of its own (`onOwnThread`: the
/// test pool's threads may be busy hashing or held by other tests' blocking waits) until it
/// holds or `timeout` seconds pass, then runs `then` on that thread at once. Returns whether
/// the condition held.
@discardableResult
func whenOffPool(
  _ condition: @escaping @Sendable () -> Bool, timeout: Double, every interval: Double = 0.002,
  then action: @escaping @Sendable () -> Void = {}
) async -> Bool {
  let held = try? await onOwnThread {
    let deadline = Date().addingTimeInterval(timeout)
    var held = condition()
    while !held && Date() < deadline {
      usleep(useconds_t(interval * 1e6))
      held = condition()
    }
    action()
    return held
  }
  return held ?? false
}
