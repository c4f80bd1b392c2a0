import Foundation
import Synchronization
import Testing

@testable import HaulClient

/// The daemon's client (`HaulClient`) against a fake daemon (`Fixtures/fake_daemon.py`)
/// that answers the routes of docs/service.md with canned JSON and plays a scripted event
/// stream, over a Unix socket in a temporary folder or on a 127.0.0.1 port. These tests
/// check the client's HTTP and SSE handling, not the daemon.
@Suite struct ClientTests {
  // MARK: Answers and errors

  @Test func aSubmittedJobDecodesEveryFieldAndIgnoresWhatItDoesNotKnow() async throws {
    try await withFakeDaemon { fake in
      // Given a daemon that answers with a job carrying a field and an option value this
      // client does not know
      let client = DaemonClient(address: .socket(path: fake.socketPath))

      // When a manifest is submitted with options
      let job = try await client.submit(
        manifest: "{\"url\": \"https://example.org/a\"}\n", output: "/data/out",
        options: ["max-rate": "10M", "jobs": 8, "verify": true, "mirrors": ["a", "b"]])

      // Then every documented field is read, times included, and the unknown ones are
      // left out
      #expect(job.id == "3f9c0a1b2c3d4e5f")
      #expect(job.state == .waiting)
      #expect(job.position == 0)
      #expect(job.output == "/data/out")
      #expect(job.name == "manifest.jsonl")
      #expect(job.total == 2000 && job.succeeded == 120 && job.skipped == 0 && job.failed == 1)
      #expect(job.bytes == 1_966_080)
      #expect(job.expectedBytes == 32_768_000)
      #expect(job.rate == 5_242_880)
      #expect(job.eta == 6.1)
      #expect(job.created == Date(timeIntervalSince1970: 1_796_659_200))
      #expect(job.started == Date(timeIntervalSince1970: 1_796_659_201.25))
      #expect(job.ended == nil)
      #expect(job.failures == nil)
      #expect(
        job.options == [
          "max-rate": .string("10M"), "jobs": .int(8), "verify": .bool(true),
          "mirrors": .strings(["a", "b"]),
        ])

      // And the request was a JSON POST of the manifest, the output and the options
      let request = try #require(fake.requests().last)
      #expect(request.method == "POST" && request.path == "/v1/jobs")
      #expect(request.headers["content-type"] == "application/json")
      #expect(request.headers["accept"] == "application/json")
      let body = try #require(request.body.data(using: .utf8))
      let sent = try JSONDecoder().decode(SentSubmission.self, from: body)
      #expect(sent.manifest == "{\"url\": \"https://example.org/a\"}\n")
      #expect(sent.output == "/data/out")
      #expect(sent.urls == nil)
      #expect(
        sent.options == [
          "max-rate": .string("10M"), "jobs": .int(8), "verify": .bool(true),
          "mirrors": .strings(["a", "b"]),
        ])
    }
  }

  @Test func anErrorAnswerBecomesTheDaemonsCodeAndMessage() async throws {
    try await withFakeDaemon { fake in
      let client = DaemonClient(address: .socket(path: fake.socketPath))

      // A manifest the daemon refuses: its error document is read
      let refused = await failure { () async throws(DaemonError) in
        _ = try await client.submit(manifest: "BAD\n")
      }
      #expect(
        refused
          == .api(
            status: 400, code: "manifest", message: "manifest.jsonl:3: the entry has no url"))

      // A job the daemon does not know
      let missing = await failure { () async throws(DaemonError) in
        _ = try await client.job("ffffffffffffffff")
      }
      #expect(missing == .api(status: 404, code: "not_found", message: "no job ffffffffffffffff"))

      // A call the job's state does not allow
      let conflict = await failure { () async throws(DaemonError) in
        _ = try await client.cancel("0000000000000000")
      }
      #expect(conflict == .api(status: 409, code: "conflict", message: "the job has ended"))

      // An error answer without an error document keeps its status and first line
      let teapot = await failure { () async throws(DaemonError) in
        _ = try await client.job("teapot")
      }
      #expect(teapot == .api(status: 418, code: "http_418", message: "I'm a teapot"))

      // A job without a field every job has is not decoded, and the error names the field
      let incomplete = await failure { () async throws(DaemonError) in
        _ = try await client.job("nostate")
      }
      #expect(incomplete == .decoding("GET /v1/jobs/nostate: state: the key is missing"))
    }
  }

  @Test func everyCallSendsTheDocumentedRequestAndReadsItsAnswer() async throws {
    try await withFakeDaemon { fake in
      let client = DaemonClient(address: .socket(path: fake.socketPath))
      let id = "3f9c0a1b2c3d4e5f"

      let jobs = try await client.jobs()
      #expect(jobs.map(\.id) == [id, "1111222233334444"])
      #expect(jobs.map(\.position) == [0, 1])

      let job = try await client.job(id)
      #expect(job.failures?.map(\.line) == [3])
      #expect(
        job.failures?.first?.error
          == JobEntry.Failure(
            code: "http_404", message: "the server answered 404 Not Found"))

      #expect(try await client.pause(id).state == .paused)
      #expect(try await client.resume(id).state == .waiting)
      #expect(try await client.cancel(id).state == .removed)
      #expect(try await client.move(id, to: 3).position == 3)
      #expect(try await client.change(id, options: ["max-rate": "1M"]).options["max-rate"] == "1M")
      try await client.forget(id)

      let failed = try await client.entries(id, state: .failed)
      #expect(failed.map(\.status) == [.failed])
      #expect(failed.first?.attempts == 3)
      let page = try await client.entries(id, offset: 1, limit: 2)
      #expect(page.map(\.line) == [2, 3])
      #expect(page.first?.status == .skipped)

      let report = try await client.report(id)
      let document = try #require(
        try JSONSerialization.jsonObject(with: report) as? [String: Any])
      #expect((document["transfers"] as? [Any])?.count == 4)

      let stats = try await client.stats()
      #expect(
        stats == DaemonStats(active: 1, waiting: 1, paused: 0, rate: 5_242_880, lastEventID: 42))

      // A job id cannot reach another route: it is one escaped path segment.
      let escaped = await failure { () async throws(DaemonError) in
        _ = try await client.job("../stats")
      }
      #expect(escaped == .api(status: 404, code: "not_found", message: "no job ..%2Fstats"))

      try await client.shutdown()

      let sent = fake.requests().map { "\($0.method) \($0.path) \($0.body)" }
      #expect(
        sent == [
          "GET /v1/jobs ",
          "GET /v1/jobs/\(id) ",
          "POST /v1/jobs/\(id)/pause ",
          "POST /v1/jobs/\(id)/resume ",
          "POST /v1/jobs/\(id)/cancel ",
          "PATCH /v1/jobs/\(id) {\"position\":3}",
          "PATCH /v1/jobs/\(id) {\"options\":{\"max-rate\":\"1M\"}}",
          "DELETE /v1/jobs/\(id) ",
          "GET /v1/jobs/\(id)/entries?state=failed ",
          "GET /v1/jobs/\(id)/entries?offset=1&limit=2 ",
          "GET /v1/jobs/\(id)/report ",
          "GET /v1/stats ",
          "GET /v1/jobs/..%2Fstats ",
          "POST /v1/shutdown ",
        ])
    }
  }

  @Test func submittingURLsSendsThemWithoutAManifest() async throws {
    try await withFakeDaemon { fake in
      let client = DaemonClient(address: .socket(path: fake.socketPath))
      let job = try await client.submit(urls: ["https://example.org/a", "https://example.org/b"])
      #expect(job.name == nil)
      #expect(job.output == "/data/default")
      #expect(job.options == ["max-rate": "10M"])
      let body = try #require(fake.requests().last?.body)
      #expect(body == #"{"options":{},"urls":["https://example.org/a","https://example.org/b"]}"#)
    }
  }

  // MARK: No daemon

  @Test func aMissingSocketMeansNoDaemon() async throws {
    let folder = try TemporaryFolder()
    let address = DaemonAddress.socket(path: folder.path + "/haul.sock")
    let client = DaemonClient(address: address)

    let call = await failure { () async throws(DaemonError) in _ = try await client.jobs() }
    #expect(call == .noDaemon(address))

    let stream = await failure { () async throws(DaemonError) in
      for try await _ in client.events() {}
    }
    #expect(stream == .noDaemon(address))
  }

  @Test func aSocketNobodyListensOnMeansNoDaemon() async throws {
    // Given the socket file a daemon that died leaves behind
    let folder = try TemporaryFolder()
    let path = folder.path + "/haul.sock"
    try await onOwnThread {
      try run([
        "python3", "-c", "import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])",
        path,
      ])
    }
    #expect(FileManager.default.fileExists(atPath: path))

    // Then a call finds no daemon
    let address = DaemonAddress.socket(path: path)
    let error = await failure { () async throws(DaemonError) in
      _ = try await DaemonClient(address: address).stats()
    }
    #expect(error == .noDaemon(address))
  }

  // MARK: Events

  @Test func eventsArriveAsTheyAreSentAndResumeAfterACutFromTheLastID() async throws {
    try await withFakeDaemon { fake in
      let client = DaemonClient(address: .socket(path: fake.socketPath))

      // Given a stream that sends events 1, a progress sample and 2, then holds until
      // released, then cuts the connection in the middle of event 3
      let events = try await within(seconds: 120) {
        var received: [DaemonEvent] = []
        for try await event in client.events() {
          received.append(event)
          // Event 2 arrives while the daemon still holds the stream open: nothing waits
          // for the response to end. Only now is the daemon told to go on and cut.
          if event.id == 2 { try fake.release() }
          if event.id == 4 { break }
        }
        return received
      }

      // Then every event came once, in order, the half-sent one only after the reconnection
      #expect(events.map(\.id) == [1, nil, 2, 3, 4])
      #expect(
        events.map(\.type) == ["job-added", "progress", "entry-done", "entry-failed", "job-ended"])
      #expect(events[0].job?.state == .waiting)
      #expect(
        events[1].progress
          == JobProgress(
            job: "3f9c0a1b2c3d4e5f", done: 1, total: 2000, bytes: 16384, rate: 1024.5))
      #expect(events[2].entry?.status == .ok)
      #expect(events[2].entry?.bytes == 16384)
      #expect(events[3].entry?.code == "http_404")
      #expect(events[4].job?.state == .error)
      let data = try JSONSerialization.jsonObject(with: events[2].data) as? [String: Any]
      #expect(data?["path"] as? String == "f1")

      // And the reconnection asked for the events after the last one delivered
      let streams = fake.requests().filter { $0.path == "/v1/events" }
      #expect(streams.map { $0.headers["last-event-id"] } == [nil, "2"])
      #expect(streams.allSatisfy { $0.headers["accept"] == "text/event-stream" })

      // And leaving the loop closed the connection
      try await eventually { fake.closedStreams() == 1 }
    }
  }

  @Test func eventsGoOnAfterTheDaemonRestarts() async throws {
    let folder = try TemporaryFolder()
    let first = try await FakeDaemon.start(folder: folder, log: "first.log")
    let second = Restarted()
    defer {
      first.stop()
      second.daemon.withLock { $0?.stop() }
    }
    let client = DaemonClient(address: .socket(path: first.socketPath))

    let events = try await within(seconds: 120) {
      var received: [Int64?] = []
      for try await event in client.events() {
        received.append(event.id)
        if event.id == 2 {
          // The daemon stops, and a new one comes up on the same socket.
          await first.stopOnOwnThread()
          let restarted = try await FakeDaemon.start(folder: folder, log: "second.log")
          second.daemon.withLock { $0 = restarted }
        }
        if event.id == 4 { break }
      }
      return received
    }

    #expect(events == [1, nil, 2, 3, 4])
    let restarted = try #require(second.daemon.withLock { $0 })
    let streams = restarted.requests().filter { $0.path == "/v1/events" }
    #expect(streams.first?.headers["last-event-id"] == "2")
  }

  @Test func eventsSinceAnIDAskForWhatFollowsItAndReadAGap() async throws {
    try await withFakeDaemon { fake in
      let client = DaemonClient(address: .socket(path: fake.socketPath))
      let first = try await within(seconds: 120) { () -> DaemonEvent? in
        for try await event in client.events(since: 100) { return event }
        return nil
      }
      #expect(first?.type == "gap")
      #expect(first?.gap == EventGap(after: 100, oldest: 105))
      #expect(fake.requests().first?.headers["last-event-id"] == "100")
    }
  }

  @Test func aSlowConsumerGetsEveryEventInOrder() async throws {
    try await withFakeDaemon { fake in
      // Given a stream that sends 3,000 events at once, more than the client buffers
      let client = DaemonClient(address: .socket(path: fake.socketPath))
      let ids = try await within(seconds: 120) {
        var ids: [Int64] = []
        for try await event in client.events(since: 5000) {
          // When the consumer is slow at first, so the buffer fills and the stream waits
          if ids.isEmpty { try await Task.sleep(for: .milliseconds(300)) }
          ids.append(event.id ?? -1)
          if ids.count == 3000 { break }
        }
        return ids
      }
      // Then every event arrives once, in order, on the one connection
      #expect(ids == Array(5001...8000))
      #expect(fake.requests().count == 1)
    }
  }

  @Test func cancellingTheConsumingTaskEndsTheSequenceAndClosesTheStream() async throws {
    try await withFakeDaemon { fake in
      let client = DaemonClient(address: .socket(path: fake.socketPath))
      let (seen, seeing) = AsyncStream.makeStream(of: Int64?.self)
      let consumer = Task {
        var count = 0
        for try await event in client.events() {
          count += 1
          seeing.yield(event.id)
        }
        return count
      }
      // Given a consumer that has read the events sent so far, the stream held open
      var ids: [Int64?] = []
      for await id in seen {
        ids.append(id)
        if id == 2 { break }
      }

      // When its task is cancelled
      consumer.cancel()

      // Then the sequence ends, without an error, and the connection is closed
      let count = try await within(seconds: 60) { try await consumer.value }
      #expect(count == 3)
      try await eventually { fake.closedStreams() == 1 }
    }
  }

  // MARK: Calls

  @Test func cancellingACallStopsItsRequest() async throws {
    try await withFakeDaemon { fake in
      let client = DaemonClient(address: .socket(path: fake.socketPath))
      // Given a call the daemon does not answer
      let call = Task { () -> DaemonError? in
        do throws(DaemonError) {
          _ = try await client.report("slow")
          return nil
        } catch {
          return error
        }
      }
      try await eventually { fake.requests().contains { $0.path == "/v1/jobs/slow/report" } }

      // When its task is cancelled
      call.cancel()

      // Then it throws `.cancelled` (it would hang without the cancel: the daemon never
      // answers), and the connection is closed
      let error = try await within(seconds: 60) { await call.value }
      #expect(error == .cancelled)
      try await eventually { fake.closedStreams() == 1 }
    }
  }

  // MARK: The token

  @Test func theTokenGoesOnlyInTheAuthorizationHeader() async throws {
    let token = "tok-5b1f0c7e9d"
    try await withFakeDaemon(token: token) { fake in
      let base = try #require(URL(string: "http://127.0.0.1:\(fake.port)"))
      let address = DaemonAddress.tcp(baseURL: base, token: token)
      let client = DaemonClient(address: address)

      // Calls and the event stream both carry it, as a bearer token
      _ = try await client.jobs()
      _ = try await client.submit(urls: ["https://example.org/a"], options: ["jobs": 2])
      let first = try await within(seconds: 120) { () -> Int64? in
        for try await event in client.events() { return event.id }
        return nil
      }
      #expect(first == 1)
      let requests = fake.requests()
      #expect(requests.count == 3)
      for request in requests {
        #expect(request.headers["authorization"] == "Bearer \(token)")
        #expect(!request.path.contains(token))
        #expect(!request.body.contains(token))
        let others = request.headers.filter { $0.key != "authorization" }
        #expect(!others.values.contains { $0.contains(token) })
      }

      // A wrong token is refused, and the error does not show it
      let wrongToken = "tok-wrong-3e8a"
      let wrong = DaemonClient(address: .tcp(baseURL: base, token: wrongToken))
      let refused = await failure { () async throws(DaemonError) in _ = try await wrong.jobs() }
      #expect(
        refused
          == .api(status: 401, code: "unauthorized", message: "a valid bearer token is required"))
      let refusedStream = await failure { () async throws(DaemonError) in
        for try await _ in wrong.events() {}
      }
      #expect(refusedStream == refused)

      // With no daemon on the port, neither the error nor the address shows the token
      await fake.stopOnOwnThread()
      let failed = await failure { () async throws(DaemonError) in _ = try await client.stats() }
      let gone = try #require(failed)
      #expect(gone == .noDaemon(address))
      var dumped = ""
      dump(gone, to: &dumped)
      for text in [
        "\(gone)", String(reflecting: gone), gone.localizedDescription, dumped, "\(address)",
        String(reflecting: address),
      ] {
        #expect(!text.contains(token))
        #expect(text.contains("127.0.0.1:\(fake.port)"))
      }
    }
  }

  // MARK: The address

  @Test func theDefaultSocketIsFoundAsTheContractSays() {
    func path(_ environment: [String: String]) -> String? {
      guard case .socket(let path) = DaemonAddress.default(environment: environment) else {
        return nil
      }
      return path
    }
    let all = [
      "HAUL_SOCKET": "/srv/haul.sock", "XDG_RUNTIME_DIR": "/run/user/1000",
      "XDG_STATE_HOME": "/home/ann/state", "HOME": "/home/ann",
    ]
    #expect(path(all) == "/srv/haul.sock")
    #expect(path(all.merging(["HAUL_SOCKET": ""]) { $1 }) == "/run/user/1000/haul/haul.sock")
    #expect(
      path(all.filter { $0.key != "HAUL_SOCKET" && $0.key != "XDG_RUNTIME_DIR" })
        == "/home/ann/state/haul/haul.sock")
    #expect(path(["HOME": "/home/ann"]) == "/home/ann/.local/state/haul/haul.sock")
    // An XDG variable that is not an absolute path is ignored, as the XDG rules say.
    #expect(
      path(["XDG_RUNTIME_DIR": "run", "HOME": "/home/ann/"])
        == "/home/ann/.local/state/haul/haul.sock")
  }

  // MARK: The event stream's parser

  @Test func theParserReadsEveryLineEndingAndFieldWhateverTheChunks() {
    let stream = Array(
      ("\u{FEFF}: keep-alive\r\nid: 7\r\nevent: job-added\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\n"
        + "event: progress\rdata:{}\r\rretry: 250\nid: 9\nunknown: x\ndata\n\n"
        + "id: 10\nevent: cut\ndata: half").utf8)
    // Every split of the bytes into two chunks gives the same events.
    for split in 0...stream.count {
      var parser = EventStreamParser(lastEventID: 3)
      var events: [EventStreamParser.Event] = []
      for part in [stream[..<split], stream[split...]] {
        _ = Array(part).withUnsafeBytes { bytes in
          parser.feed(bytes) { event in
            events.append(event)
            return true
          }
        }
      }
      #expect(
        events == [
          .init(id: 7, type: "job-added", data: Data("{\"a\":\n1}".utf8)),
          .init(id: nil, type: "progress", data: Data("{}".utf8)),
          .init(id: 9, type: "message", data: Data()),
        ], "split at \(split)")
      // The event cut short is not dispatched, and the id to resume from is the last
      // dispatched one's.
      #expect(parser.lastEventID == 9)
      #expect(parser.retryMilliseconds == 250)
      parser.reset()
      #expect(parser.lastEventID == 9)
    }
  }
}

// MARK: - The fake daemon

/// What the fake daemon logged of one request.
private struct LoggedRequest: Decodable {
  var kind: String
  var method = ""
  var path = ""
  var headers: [String: String] = [:]
  var body = ""

  private enum CodingKeys: String, CodingKey { case kind, method, path, headers, body }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    kind = try container.decode(String.self, forKey: .kind)
    method = try container.decodeIfPresent(String.self, forKey: .method) ?? ""
    path = try container.decodeIfPresent(String.self, forKey: .path) ?? ""
    headers = try container.decodeIfPresent([String: String].self, forKey: .headers) ?? [:]
    body = try container.decodeIfPresent(String.self, forKey: .body) ?? ""
  }
}

/// The body of a submission, as the fake daemon received it.
private struct SentSubmission: Decodable {
  var manifest: String?
  var urls: [String]?
  var output: String?
  var options: [String: JobOption]
}

/// A folder under /tmp, short enough for a socket path, removed when the last reference
/// goes.
private final class TemporaryFolder: Sendable {
  let path: String

  init() throws {
    path = "/tmp/haul-client-" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
  }

  deinit {
    try? FileManager.default.removeItem(atPath: path)
  }
}

/// `Fixtures/fake_daemon.py`, running.
///
/// `@unchecked Sendable`: its properties are set once, before it is shared; `Process` is only
/// asked to terminate and waited for, under `stopped`'s lock.
private final class FakeDaemon: @unchecked Sendable {
  let folder: TemporaryFolder
  let socketPath: String
  let logPath: String
  /// The TCP port, with a token; 0 on the socket.
  let port: Int
  private let process: Process
  private let stopped = Mutex(false)

  static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Fixtures/fake_daemon.py").path

  private init(folder: TemporaryFolder, log: String, port: Int, process: Process) {
    self.folder = folder
    socketPath = folder.path + "/haul.sock"
    logPath = folder.path + "/" + log
    self.port = port
    self.process = process
  }

  /// Starts a fake daemon on `folder`'s socket, or with `token` on a 127.0.0.1 port, and
  /// waits until it listens.
  static func start(
    folder: TemporaryFolder, token: String? = nil, log: String = "requests.log"
  ) async throws -> FakeDaemon {
    try await onOwnThread {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      var arguments = [
        "python3", script, "--log", folder.path + "/" + log, "--release",
        folder.path + "/release",
      ]
      if let token {
        arguments += ["--tcp", "--token", token]
      } else {
        arguments += ["--socket", folder.path + "/haul.sock"]
      }
      process.arguments = arguments
      let output = Pipe()
      process.standardOutput = output
      try process.run()
      var line = Data()
      while !line.contains(0x0A) {
        let more = output.fileHandleForReading.availableData
        guard !more.isEmpty else { throw FakeDaemonError.didNotStart }
        line.append(more)
      }
      let words = String(decoding: line, as: UTF8.self).split(whereSeparator: \.isWhitespace)
      guard words.count == 2, words[0] == "ready", let port = Int(words[1]) else {
        throw FakeDaemonError.didNotStart
      }
      return FakeDaemon(folder: folder, log: log, port: port, process: process)
    }
  }

  /// Kills the process, leaving its socket file behind as a daemon that died does.
  ///
  /// SIGKILL rather than `terminate()`'s SIGTERM: a process started from one of
  /// libdispatch's threads inherits their blocked signals, SIGTERM among them.
  func stop() {
    stopped.withLock { stopped in
      guard !stopped else { return }
      stopped = true
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
  }

  func stopOnOwnThread() async {
    _ = try? await onOwnThread { self.stop() }
  }

  /// Lets the held first event stream go on: to half an event and a cut.
  func release() throws {
    try Data().write(to: URL(fileURLWithPath: folder.path + "/release"))
  }

  /// Every request logged so far, in order.
  func requests() -> [LoggedRequest] {
    logged().filter { $0.kind == "request" }
  }

  /// How many times the client closed a held connection.
  func closedStreams() -> Int {
    logged().filter { $0.kind == "closed" }.count
  }

  private func logged() -> [LoggedRequest] {
    guard let text = try? String(contentsOfFile: logPath, encoding: .utf8) else { return [] }
    return text.split(separator: "\n").compactMap {
      try? JSONDecoder().decode(LoggedRequest.self, from: Data($0.utf8))
    }
  }
}

/// The fake daemon started in the middle of a test, to be stopped at its end.
private final class Restarted: Sendable {
  let daemon = Mutex<FakeDaemon?>(nil)
}

private enum FakeDaemonError: Error {
  case didNotStart
}

private struct TimedOut: Error {}

/// Runs `body` with a fake daemon in a new folder, on its socket or, with `token`, on a
/// 127.0.0.1 port, and stops it however `body` ends.
private func withFakeDaemon(
  token: String? = nil, _ body: (FakeDaemon) async throws -> Void
) async throws {
  let fake = try await FakeDaemon.start(folder: TemporaryFolder(), token: token)
  do {
    try await body(fake)
  } catch {
    await fake.stopOnOwnThread()
    throw error
  }
  await fake.stopOnOwnThread()
}

/// The error `body` throws, or `nil` when it throws none.
private func failure(_ body: () async throws(DaemonError) -> Void) async -> DaemonError? {
  do throws(DaemonError) {
    try await body()
    return nil
  } catch {
    return error
  }
}

/// `body`'s result, or `TimedOut` after `seconds` (`body` is then cancelled).
private func within<T: Sendable>(
  seconds: Double, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
  try await withThrowingTaskGroup(of: T.self) { group in
    group.addTask { try await body() }
    group.addTask {
      try await Task.sleep(for: .seconds(seconds))
      throw TimedOut()
    }
    defer { group.cancelAll() }
    return try await group.next()!
  }
}

/// Waits until `condition` holds, looking every 20 ms for up to 60 s (a bound for a failure
/// only: a loaded machine may take long to get there).
private func eventually(_ condition: () -> Bool) async throws {
  let deadline = ContinuousClock.now + .seconds(60)
  while !condition() {
    guard ContinuousClock.now < deadline else { throw TimedOut() }
    try await Task.sleep(for: .milliseconds(20))
  }
}

/// Runs a command to its end; throws when it fails.
private func run(_ arguments: [String]) throws {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = arguments
  try process.run()
  process.waitUntilExit()
  guard process.terminationStatus == 0 else { throw FakeDaemonError.didNotStart }
}
