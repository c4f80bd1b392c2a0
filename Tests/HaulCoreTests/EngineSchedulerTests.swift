import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// The scheduler's two paths through the same scripts: `ScriptedEngine` carries first
/// attempts on its own thread as curl's loop does (`EntryJob` executing the attempt
/// machine), `ScriptedTransport` sends every attempt from a task (`EntryRunner.attempt`).
/// Each case runs on both and expects the same outcomes; on the engine, that the engine
/// carried the entries. The cases on files run with `--fsync` too, where the files are put
/// in place by the `FileFinisher`'s threads: each outcome must be told only once its file is
/// in place.
@Suite("Scheduler on both paths: the engine's thread and a task")
final class EngineSchedulerTests {
  enum Path: String, CaseIterable, CustomTestStringConvertible {
    case engine, task
    var testDescription: String { rawValue }
  }

  /// A path, and whether the run syncs its files (`--fsync`).
  struct Mode: CustomTestStringConvertible, Sendable {
    var path: Path
    var fsync: Bool
    var testDescription: String { path.rawValue + (fsync ? ", --fsync" : "") }
    static let all = Path.allCases.flatMap {
      [Mode(path: $0, fsync: false), Mode(path: $0, fsync: true)]
    }
  }

  let directory = FileManager.default.temporaryDirectory
    .appendingPathComponent("haul-engine-scheduler-\(UUID().uuidString)").path

  deinit { try? FileManager.default.removeItem(atPath: directory) }

  func transport(
    _ path: Path, _ script: @escaping @Sendable (TransferRequest, Int) -> ScriptedTransport.Answer
  ) -> ScriptedTransport {
    path == .engine ? ScriptedEngine(script) : ScriptedTransport(script)
  }

  func entry(
    _ line: Int, _ name: String, size: Int64? = nil, sha256: String? = nil,
    operation: ManifestEntry.Operation = .download
  ) -> ManifestEntry {
    let url = "http://h/\(name)"
    return ManifestEntry(
      line: line, text: "{\"url\":\"\(url)\"}", operation: operation, url: URL(string: url)!,
      path: name, size: size, sha256: sha256)
  }

  /// The `retry` events of the last `run`: line, attempt, code, delay.
  var retries: [Retry] = []
  struct Retry: Equatable {
    var line: Int
    var attempt: Int
    var code: TransferError.Code
    var delay: Double
  }

  /// The paths of the entries of the last `run` whose success was told before the file was
  /// in place (with its partial gone).
  var toldEarly: [String] = []

  func run(
    _ transport: ScriptedTransport, _ entries: [ManifestEntry], concurrency: Int = 4,
    retries: Int = 2, fsync: Bool = false
  ) async -> [Int: EntryOutcome] {
    let scheduler = Scheduler(
      transport: transport,
      options: SchedulerOptions(
        outputDirectory: directory, concurrency: concurrency, perHost: 8, retries: retries,
        fsync: fsync, backoffBase: 0.001, backoffCap: 0.01, outageLimit: 0.5))
    var outcomes: [Int: EntryOutcome] = [:]
    self.retries = []
    toldEarly = []
    for await event in scheduler.run(entries) {
      switch event {
      case .finished(let outcome):
        outcomes[outcome.line] = outcome
        let downloaded = entries.first { $0.line == outcome.line }?.operation == .download
        if downloaded, outcome.status == .ok,
          contents(outcome.path) == nil || contents(outcome.path + ".haul-partial") != nil
        {
          toldEarly.append(outcome.path)
        }
      case .retry(let info, let attempt, let code, let delay):
        self.retries.append(Retry(line: info.line, attempt: attempt, code: code, delay: delay))
      default: break
      }
    }
    return outcomes
  }

  func contents(_ name: String) -> [UInt8]? {
    FileManager.default.contents(atPath: directory + "/" + name).map(Array.init)
  }

  /// The engine carried `count` entries' first attempts; the task path none.
  func expectCarried(_ transport: ScriptedTransport, _ path: Path, _ count: Int) {
    #expect((transport as? ScriptedEngine)?.jobsBegun ?? 0 == (path == .engine ? count : 0))
  }

  @Test(arguments: Mode.all)
  func downloads_land_exact_with_one_request_each_within_the_concurrency(_ mode: Mode) async {
    let path = mode.path
    let transport = transport(path) { request, _ in
      .init(status: 200, body: Array(request.url.lastPathComponent.utf8))
    }
    let outcomes = await run(
      transport, (1...40).map { entry($0, "file\($0)") }, concurrency: 3, fsync: mode.fsync)
    #expect(outcomes.count == 40)
    #expect(toldEarly.isEmpty)
    #expect(outcomes.values.allSatisfy { $0.status == .ok && $0.attempts == 1 })
    #expect((1...40).allSatisfy { contents("file\($0)") == Array("file\($0)".utf8) })
    #expect(transport.requests.count == 40)
    #expect(transport.maxInFlight <= 3)
    expectCarried(transport, path, 40)
  }

  @Test(arguments: Path.allCases)
  func a_503_first_answer_is_retried_and_the_retry_succeeds(_ path: Path) async {
    let transport = transport(path) { _, number in
      number == 1 ? .init(status: 503) : .init(status: 200, body: [1, 2, 3])
    }
    let outcomes = await run(transport, [entry(1, "a")])
    #expect(outcomes[1]?.status == .ok)
    #expect(outcomes[1]?.attempts == 2)
    #expect(contents("a") == [1, 2, 3])
    expectCarried(transport, path, 1)
  }

  @Test(arguments: Mode.all)
  func a_digest_mismatch_fails_the_entry_and_leaves_nothing_at_its_path(_ mode: Mode) async {
    let path = mode.path
    let good = SHA256.hex(of: Array("hello".utf8))
    let transport = transport(path) { request, _ in
      .init(
        status: 200, body: Array((request.url.lastPathComponent == "good" ? "hello" : "bad").utf8))
    }
    let outcomes = await run(
      transport, [entry(1, "good", sha256: good), entry(2, "bad", sha256: good)], retries: 0,
      fsync: mode.fsync)
    #expect(outcomes[1]?.status == .ok)
    #expect(toldEarly.isEmpty)
    #expect(outcomes[1]?.sha256 == good)
    #expect(outcomes[2]?.error?.code == .checksumMismatch)
    #expect(contents("good") == Array("hello".utf8))
    #expect(contents("bad") == nil)
    #expect(contents("bad.haul-partial") == nil)
    expectCarried(transport, path, 2)
  }

  @Test(arguments: Path.allCases)
  func a_redirect_is_followed_within_one_attempt(_ path: Path) async {
    let transport = transport(path) { request, _ in
      request.url.path == "/a"
        ? .init(status: 302, headers: [HTTPField("Location", "http://h/elsewhere")])
        : .init(status: 200, body: [5])
    }
    let outcomes = await run(transport, [entry(1, "a")])
    #expect(outcomes[1]?.status == .ok)
    #expect(outcomes[1]?.attempts == 1)
    #expect(transport.requests.map(\.url.path) == ["/a", "/elsewhere"])
    #expect(contents("a") == [5])
    expectCarried(transport, path, 1)
  }

  @Test(arguments: Mode.all)
  func a_partial_resumes_and_an_answer_that_is_no_continuation_restarts_from_zero_once(
    _ mode: Mode
  ) async {
    let path = mode.path
    let body = Array("0123456789".utf8)
    let half = transport(path) { _, _ in
      .init(
        status: 200, headers: [HTTPField("ETag", "\"v1\""), HTTPField("Content-Length", "10")],
        body: Array(body[..<4]), error: TransferError(.protocol, "the connection was cut"))
    }
    let cutShort = await run(half, [entry(1, "a", size: 10)], retries: 0, fsync: mode.fsync)
    #expect(cutShort[1]?.status == .failed)
    #expect(contents("a") == nil)
    #expect(contents("a.haul-partial") == Array(body[..<4]))
    // The server now has another version: its 206 names another validator, so the partial
    // is no prefix of it; the attempt starts over without a range.
    let other = Array("abcdefghij".utf8)
    let changed = transport(path) { request, _ in
      request.range == nil
        ? .init(status: 200, headers: [HTTPField("ETag", "\"v2\"")], body: other)
        : .init(
          status: 206,
          headers: [HTTPField("ETag", "\"v2\""), HTTPField("Content-Range", "bytes 4-9/10")],
          body: Array(other[4...]))
    }
    let resumed = await run(changed, [entry(1, "a", size: 10)], fsync: mode.fsync)
    #expect(resumed[1]?.status == .ok)
    #expect(toldEarly.isEmpty)
    #expect(resumed[1]?.attempts == 1)
    #expect(changed.requests.first?.range == ByteRange(start: 4))
    #expect(changed.requests.count == 2)
    #expect(changed.requests.last?.range == nil)
    #expect(contents("a") == other)
    expectCarried(changed, path, 1)
  }

  /// A file cut short after `cut` bytes, whose partial then changes on disk: the resume's
  /// digest fails, and the file is fetched once more from the first byte in the same run.
  /// `size` above the background-digest threshold has a worker finish the digest, which the
  /// engine waits for in a task that carries the fetch from zero out.
  @Test(arguments: Mode.all, [(size: 10, cut: 4), (size: 6 << 20, cut: 1 << 20)])
  func a_resumed_file_whose_digest_fails_is_fetched_once_more_from_zero_in_the_same_run(
    _ mode: Mode, _ shape: (size: Int, cut: Int)
  ) async throws {
    let path = mode.path
    let body = (0..<shape.size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
    let digest = SHA256.hex(of: body)
    let tag = HTTPField("ETag", "\"v1\"")
    let half = transport(path) { _, _ in
      .init(
        status: 200, headers: [tag, HTTPField("Content-Length", "\(shape.size)")],
        body: Array(body[..<shape.cut]), error: TransferError(.protocol, "the connection was cut"))
    }
    let cutShort = await run(
      half, [entry(1, "a", size: Int64(shape.size), sha256: digest)], retries: 0,
      fsync: mode.fsync)
    #expect(cutShort[1]?.status == .failed)
    // The kept bytes change on disk: they no longer match the file.
    let partial = try FileHandle(forUpdating: URL(fileURLWithPath: directory + "/a.haul-partial"))
    try partial.seek(toOffset: 0)
    try partial.write(contentsOf: Data(repeating: 0xFF, count: min(4096, shape.cut)))
    try partial.close()

    let whole = transport(path) { request, _ in
      guard let range = request.range else { return .init(status: 200, headers: [tag], body: body) }
      let start = Int(range.start)
      return .init(
        status: 206,
        headers: [
          tag, HTTPField("Content-Range", "bytes \(start)-\(shape.size - 1)/\(shape.size)"),
        ],
        body: Array(body[start...]))
    }
    let resumed = await run(
      whole, [entry(1, "a", size: Int64(shape.size), sha256: digest)], retries: 0,
      fsync: mode.fsync)
    #expect(resumed[1]?.status == .ok, "\(String(describing: resumed[1]?.error))")
    #expect(toldEarly.isEmpty)
    #expect(resumed[1]?.attempts == 2)
    #expect(retries == [Retry(line: 1, attempt: 2, code: .checksumMismatch, delay: 0)])
    #expect(whole.requests.map(\.range) == [ByteRange(start: Int64(shape.cut)), nil])
    #expect(contents("a") == body)
    #expect(contents("a.haul-partial") == nil)
    expectCarried(whole, path, 1)
  }

  @Test(arguments: Path.allCases)
  func an_upload_sends_the_file_and_a_4xx_fails_it(_ path: Path) async throws {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: directory + "/up", contents: Data([1, 2, 3, 4]))
    _ = FileManager.default.createFile(atPath: directory + "/no", contents: Data([9]))
    let transport = transport(path) { request, _ in
      .init(status: request.url.lastPathComponent == "up" ? 201 : 403)
    }
    let outcomes = await run(
      transport,
      [entry(1, "up", operation: .upload), entry(2, "no", operation: .upload)], retries: 0)
    #expect(outcomes[1]?.status == .ok)
    #expect(outcomes[2]?.error?.code == .http(403))
    #expect(transport.requests.allSatisfy { $0.body != nil })
    expectCarried(transport, path, 2)
  }
}
