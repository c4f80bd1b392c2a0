import Foundation
import HaulCore
import HaulTestSupport
import Synchronization
import Testing

/// The outcomes an event handler collects, by manifest line.
final class OutcomeCollector: Sendable {
  let byLine = Mutex([Int: EntryOutcome]())
}

@Suite("Scheduler decisions, with a scripted transport")
final class SchedulerTests {
  let directory = FileManager.default.temporaryDirectory
    .appendingPathComponent("haul-scheduler-\(UUID().uuidString)").path

  deinit { try? FileManager.default.removeItem(atPath: directory) }

  func entry(
    _ line: Int, _ name: String, host: String = "h", mirrors: [String] = [], size: Int64? = nil,
    sha256: String? = nil
  ) -> ManifestEntry {
    let url = "http://\(host)/\(name)"
    return ManifestEntry(
      line: line, text: "{\"url\":\"\(url)\"}", url: URL(string: url)!,
      mirrors: mirrors.map { URL(string: $0)! }, path: name, size: size, sha256: sha256)
  }

  func run(
    _ transport: ScriptedTransport, _ entries: [ManifestEntry], concurrency: Int = 4,
    perHost: Int = 8, retries: Int = 2
  ) async -> (events: [TransferEvent], outcomes: [Int: EntryOutcome]) {
    let scheduler = Scheduler(
      transport: transport,
      options: SchedulerOptions(
        outputDirectory: directory, concurrency: concurrency, perHost: perHost, retries: retries,
        backoffBase: 0.001, backoffCap: 0.01, outageLimit: 0.5))
    var events: [TransferEvent] = []
    var outcomes: [Int: EntryOutcome] = [:]
    for await event in scheduler.run(entries) {
      events.append(event)
      if case .finished(let outcome) = event { outcomes[outcome.line] = outcome }
    }
    return (events, outcomes)
  }

  func contents(_ name: String) -> [UInt8]? {
    FileManager.default.contents(atPath: directory + "/" + name).map(Array.init)
  }

  @Test func a_rerun_of_complete_entries_skips_each_once_and_sends_nothing() async {
    // Given 600 entries with digests, downloaded once (a rerun's checks run in parallel
    // batches once most entries turn out complete).
    let body = Array("complete".utf8)
    let digest = SHA256.hex(of: body)
    let entries = (1...600).map { entry($0, "f\($0)", size: Int64(body.count), sha256: digest) }
    let first = ScriptedTransport { _, _ in .init(status: 200, body: body) }
    _ = await run(first, entries)
    // When the same manifest runs again
    let second = ScriptedTransport { _, _ in .init(status: 200, body: body) }
    let (events, outcomes) = await run(second, entries)
    // Then every entry is skipped exactly once, with its digest, and nothing is requested.
    #expect(second.requests.isEmpty)
    #expect(outcomes.count == 600)
    #expect(outcomes.values.allSatisfy { $0.status == .skipped && $0.sha256 == digest })
    let finished = events.filter { if case .finished = $0 { true } else { false } }
    #expect(finished.count == 600)
  }

  @Test func a_rerun_with_files_missing_among_complete_ones_fetches_just_those() async throws {
    // Given 900 entries downloaded once, of which every 40th is then removed (the rerun's
    // batches are checked in their own task while the feeder reads the next one)
    let body = Array("complete".utf8)
    let digest = SHA256.hex(of: body)
    let entries = (1...900).map { entry($0, "f\($0)", size: Int64(body.count), sha256: digest) }
    _ = await run(ScriptedTransport { _, _ in .init(status: 200, body: body) }, entries)
    let missing = Set(stride(from: 40, through: 900, by: 40))
    for line in missing { try FileManager.default.removeItem(atPath: directory + "/f\(line)") }
    // When the same manifest runs again
    let second = ScriptedTransport { _, _ in .init(status: 200, body: body) }
    let (events, outcomes) = await run(second, entries)
    // Then just the missing files are fetched, each entry ends once, and the skipped ones end
    // in the manifest's order.
    let fetched = Set(second.requests.compactMap { Int($0.url.lastPathComponent.dropFirst()) })
    #expect(fetched == missing)
    #expect(second.requests.count == missing.count)
    #expect(outcomes.count == 900)
    #expect(outcomes.values.allSatisfy { ($0.status == .ok) == missing.contains($0.line) })
    #expect(outcomes.values.allSatisfy { $0.status != .failed && $0.sha256 == digest })
    let finished = events.compactMap { event -> EntryOutcome? in
      if case .finished(let outcome) = event { outcome } else { nil }
    }
    #expect(finished.count == 900)
    let skipped = finished.filter { $0.status == .skipped }.map(\.line)
    #expect(skipped == (1...900).filter { !missing.contains($0) })
    for line in missing { #expect(contents("f\(line)") == body) }
  }

  @Test func a_503_twice_then_200_takes_three_attempts() async {
    let transport = ScriptedTransport { _, number in
      number <= 2 ? .init(status: 503) : .init(status: 200, body: Array("hello".utf8))
    }
    let (events, outcomes) = await run(transport, [entry(1, "a")])
    #expect(outcomes[1]?.status == .ok)
    #expect(outcomes[1]?.attempts == 3)
    #expect(outcomes[1]?.sha256 == SHA256.hex(of: Array("hello".utf8)))
    #expect(contents("a") == Array("hello".utf8))
    let retries = events.compactMap { event -> Int? in
      if case .retry(_, let attempt, let code, _) = event, code == .http(503) { return attempt }
      return nil
    }
    #expect(retries == [2, 3])
    guard case .summary(let summary) = events.last else {
      Issue.record("the last event is not the summary")
      return
    }
    #expect(summary.succeeded == 1 && summary.total == 1 && summary.bytes == 5)
  }

  @Test func a_404_fails_at_once_then_the_mirror_serves() async {
    let transport = ScriptedTransport { request, _ in
      request.url.host == "h"
        ? .init(status: 404, body: Array("not found".utf8)) : .init(status: 200, body: [1, 2, 3])
    }
    let (_, outcomes) = await run(transport, [entry(1, "a", mirrors: ["http://m/a"])])
    #expect(outcomes[1]?.status == .ok)
    #expect(outcomes[1]?.attempts == 2)
    #expect(contents("a") == [1, 2, 3])
  }

  @Test func retries_exhausted_fail_with_the_last_code_after_one_plus_retries_attempts() async {
    let transport = ScriptedTransport { _, _ in .init(status: 500) }
    let (_, outcomes) = await run(transport, [entry(1, "a")], retries: 3)
    #expect(outcomes[1]?.status == .failed)
    #expect(outcomes[1]?.error?.code == .http(500))
    #expect(outcomes[1]?.attempts == 4)
    #expect(contents("a") == nil)
  }

  @Test func a_checksum_mismatch_leaves_no_file_in_place() async {
    let transport = ScriptedTransport { _, _ in .init(status: 200, body: [9, 9, 9]) }
    let (_, outcomes) = await run(
      transport, [entry(1, "a", sha256: String(repeating: "0", count: 64))])
    #expect(outcomes[1]?.error?.code == .checksumMismatch)
    #expect(contents("a") == nil)
    #expect(contents("a.haul-partial") == nil)
  }

  @Test func without_digests_only_entries_with_a_checksum_are_hashed() async {
    let transport = ScriptedTransport { _, _ in .init(status: 200, body: Array("hello".utf8)) }
    let scheduler = Scheduler(
      transport: transport,
      options: SchedulerOptions(
        outputDirectory: directory, retries: 0, digestsWithoutChecksum: false))
    let good = SHA256.hex(of: Array("hello".utf8))
    let entries = [
      entry(1, "plain"), entry(2, "checked", sha256: good),
      entry(3, "wrong", sha256: String(repeating: "0", count: 64)),
    ]
    let outcomes = OutcomeCollector()
    await scheduler.run(entries) { event in
      if case .finished(let outcome) = event {
        outcomes.byLine.withLock { $0[outcome.line] = outcome }
      }
    }
    let byLine = outcomes.byLine.withLock { $0 }
    #expect(byLine[1]?.status == .ok)
    #expect(byLine[1]?.sha256 == nil)
    #expect(contents("plain") == Array("hello".utf8))
    #expect(byLine[2]?.status == .ok)
    #expect(byLine[2]?.sha256 == good)
    #expect(byLine[3]?.error?.code == .checksumMismatch)
    #expect(contents("wrong") == nil)
  }

  @Test func a_complete_file_is_skipped_without_a_request() async throws {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: directory + "/a", contents: Data([1, 2, 3]))
    let transport = ScriptedTransport { _, _ in .init(status: 500) }
    let (_, outcomes) = await run(transport, [entry(1, "a", size: 3)])
    #expect(outcomes[1]?.status == .skipped)
    #expect(outcomes[1]?.bytes == 0)
    #expect(transport.requests.isEmpty)
  }

  @Test func a_partial_file_resumes_with_range_and_if_range() async {
    let body = Array("0123456789".utf8)
    let half = ScriptedTransport { request, _ in
      .init(
        status: 200, headers: [HTTPField("ETag", "\"v1\""), HTTPField("Content-Length", "10")],
        body: Array(body[..<4]), error: TransferError(.protocol, "the connection was cut"))
    }
    let (_, cutShort) = await run(half, [entry(1, "a", size: 10)], retries: 0)
    #expect(cutShort[1]?.status == .failed)
    #expect(contents("a.haul-partial") == Array(body[..<4]))
    let rest = ScriptedTransport { request, _ in
      .init(
        status: 206,
        headers: [HTTPField("ETag", "\"v1\""), HTTPField("Content-Range", "bytes 4-9/10")],
        body: Array(body[4...]))
    }
    let (_, resumed) = await run(rest, [entry(1, "a", size: 10)])
    #expect(resumed[1]?.status == .ok)
    #expect(resumed[1]?.bytes == 6)
    #expect(rest.requests.first?.range == ByteRange(start: 4))
    #expect(rest.requests.first?.ifRange == "\"v1\"")
    #expect(contents("a") == body)
  }

  @Test func the_global_limit_holds_across_hosts() async {
    // Given four hosts whose per-host limits add up to 8, and a global limit of 3,
    let transport = ScriptedTransport { _, _ in .init(status: 200, body: [1]) }
    let entries = (1...40).map { entry($0, "f\($0)", host: "h\($0 % 4)") }
    // when the run has more waiting entries than either limit,
    let (_, outcomes) = await run(transport, entries, concurrency: 3, perHost: 2)
    // then every entry completes, and the global limit, not the hosts', caps what is in flight.
    #expect(outcomes.count == 40)
    #expect(outcomes.values.allSatisfy { $0.status == .ok })
    #expect(transport.maxInFlight == 3)
    #expect(transport.maxInFlightPerHost.count == 4)
    #expect(transport.maxInFlightPerHost.values.allSatisfy { $0 <= 2 })
  }

  @Test func the_per_host_limit_holds_below_the_global_one() async {
    // Given one host with a limit of 2 under a global limit of 8,
    let transport = ScriptedTransport { _, _ in .init(status: 200, body: [1]) }
    let entries = (1...40).map { entry($0, "f\($0)") }
    // when the run has 40 entries for it,
    let (_, outcomes) = await run(transport, entries, concurrency: 8, perHost: 2)
    // then every entry completes with at most 2 in flight.
    #expect(outcomes.count == 40)
    #expect(outcomes.values.allSatisfy { $0.status == .ok })
    #expect(transport.maxInFlight == 2)
  }

  @Test func a_changed_validator_restarts_from_zero() async {
    let old = ScriptedTransport { _, _ in
      .init(
        status: 200, headers: [HTTPField("ETag", "\"v1\""), HTTPField("Content-Length", "8")],
        body: Array("OLDO".utf8), error: TransferError(.protocol, "cut"))
    }
    _ = await run(old, [entry(1, "a")], retries: 0)
    #expect(contents("a.haul-partial") == Array("OLDO".utf8))
    let new = ScriptedTransport { _, _ in
      .init(status: 200, headers: [HTTPField("ETag", "\"v2\"")], body: Array("NEWNEWNE".utf8))
    }
    let (_, outcomes) = await run(new, [entry(1, "a")])
    #expect(new.requests.first?.ifRange == "\"v1\"")
    #expect(outcomes[1]?.status == .ok)
    #expect(contents("a") == Array("NEWNEWNE".utf8))
  }

  @Test func cancelling_fails_every_unfinished_entry_with_cancelled() async {
    let transport = ScriptedTransport { _, _ in .init(status: 503) }
    let scheduler = Scheduler(
      transport: transport,
      options: SchedulerOptions(
        outputDirectory: directory, concurrency: 2, retries: 100, backoffBase: 0.05,
        backoffCap: 0.05))
    var outcomes: [EntryOutcome] = []
    var summary: RunSummary?
    for await event in scheduler.run((1...50).map { entry($0, "f\($0)") }) {
      switch event {
      case .retry: await scheduler.cancel()
      case .finished(let outcome): outcomes.append(outcome)
      case .summary(let value): summary = value
      default: break
      }
    }
    #expect(outcomes.count == 50)
    #expect(outcomes.allSatisfy { $0.status == .failed && $0.error?.code == .cancelled })
    #expect(summary?.cancelled == true)
    #expect(summary?.failed == 50)
  }

  /// A cancel that comes before the run begins (a daemon's job paused before its
  /// scheduler ran) is the run's first event: nothing is sent, every entry ends
  /// `cancelled`, and the run holds nothing once it ended, on the engine or in tasks.
  @Test(arguments: [false, true])
  func a_run_cancelled_before_it_began_sends_nothing_and_cancels_every_entry(engine: Bool)
    async
  {
    let script: @Sendable (TransferRequest, Int) -> ScriptedTransport.Answer = { _, _ in
      .init(status: 200, body: [1])
    }
    let transport = engine ? ScriptedEngine(script) : ScriptedTransport(script)
    let scheduler = Scheduler(
      transport: transport, options: SchedulerOptions(outputDirectory: directory, concurrency: 2))
    await scheduler.cancel()
    var outcomes: [EntryOutcome] = []
    var summary: RunSummary?
    for await event in scheduler.run((1...20).map { entry($0, "f\($0)") }) {
      switch event {
      case .finished(let outcome): outcomes.append(outcome)
      case .summary(let value): summary = value
      default: break
      }
    }
    #expect(transport.requests.isEmpty)
    #expect(outcomes.count == 20)
    #expect(outcomes.allSatisfy { $0.status == .failed && $0.error?.code == .cancelled })
    #expect(summary?.cancelled == true)
    #expect(await scheduler.holdings() == RunHoldings.none)
  }

  @Test func a_401_reruns_the_auth_command_once_for_all_and_retries_without_spending_a_retry()
    async throws
  {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let counter = directory + "/runs"
    let interceptor = CommandTokenInterceptor(
      command:
        "n=$(cat \(counter) 2>/dev/null || echo 0); n=$((n+1)); echo $n > \(counter); echo \" token$n \""
    )
    try await interceptor.prime()
    let transport = ScriptedTransport { request, _ in
      request.headers.value(for: "Authorization") == "Bearer token2"
        ? .init(status: 200, body: [7]) : .init(status: 401)
    }
    let scheduler = Scheduler(
      transport: transport,
      options: SchedulerOptions(
        outputDirectory: directory, concurrency: 8, retries: 0, interceptor: interceptor))
    var outcomes: [EntryOutcome] = []
    for await event in scheduler.run((1...6).map { entry($0, "f\($0)") }) {
      if case .finished(let outcome) = event { outcomes.append(outcome) }
    }
    #expect(outcomes.count == 6)
    // The re-sent request is the second attempt; with no retry allowed it still runs.
    #expect(outcomes.allSatisfy { $0.status == .ok && $0.attempts == 2 })
    let runs = try String(contentsOfFile: counter, encoding: .utf8)
    #expect(runs.trimmingCharacters(in: .whitespacesAndNewlines) == "2")
  }

  @Test func a_second_401_fails_with_http_401() async throws {
    let interceptor = CommandTokenInterceptor(command: "echo token")
    let transport = ScriptedTransport { _, _ in .init(status: 401) }
    let scheduler = Scheduler(
      transport: transport,
      options: SchedulerOptions(outputDirectory: directory, retries: 3, interceptor: interceptor))
    var outcome: EntryOutcome?
    for await event in scheduler.run([entry(1, "a")]) {
      if case .finished(let value) = event { outcome = value }
    }
    #expect(outcome?.error?.code == .http(401))
    #expect(outcome?.attempts == 2)
    #expect(transport.requests.count == 2)
  }
}
