import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// Network and server faults, through the built binary and both transports: each one ends in
/// exact bytes in place, or in a failure with its stable code, the promised number of
/// attempts and nothing at the destination.
@Suite("Faults survived: network and server misbehaviour, end to end")
struct FaultNetworkTests {
  let directory: TemporaryDirectory
  let server: FaultServer

  init() throws {
    directory = try TemporaryDirectory(prefix: "haul-fault-net")
    server = try FaultServer.started()
  }

  func cleanUp() {
    server.stop()
    directory.remove()
  }

  func out(_ path: String) -> String { directory.file("out/" + path) }

  @Test(arguments: transports)
  func twenty_connections_reset_mid_body_in_parallel_all_resume_exactly(transport: String)
    async throws
  {
    defer { cleanUp() }
    let size: Int64 = 300_000
    let cuts = (0..<20).map { Int64(40_000 + $0 * 10_000) }
    let lines = try cuts.enumerated().map { index, cut in
      try dataLine(
        server, "reset\(index)", size: size, seed: UInt64(100 + index),
        options: ["drop": "\(cut)", "times": "1"])
    }
    try writeManifest(lines, in: directory)

    let run = try FaultRun(
      try await HaulBinary.run(
        runArguments(transport, ["-j", "20", "--per-host", "20", "--retries", "2"]),
        in: directory), reportIn: directory)

    #expect(run.result.status == 0, "\(run.result.stderr)")
    for (index, cut) in cuts.enumerated() {
      let line = index + 1
      #expect(run.status(line) == "ok", "\(run.describe(line))")
      #expect(run.attempts(line) == 2, "\(run.describe(line))")
      #expect(run.retries(line).first?["code"] as? String != nil)
      #expect(holdsContent(out("reset\(index).bin"), seed: UInt64(100 + index), size: size))
      #expect(!exists(out("reset\(index).bin.haul-partial")))
      #expect(!exists(out("reset\(index).bin.haul-state")))
      // The retry resumed from what was on disk, guarded by the validator.
      let requests = server.requests.filter { $0.path == "/data/reset\(index)" }
      #expect(requests.count == 2)
      let range = try #require(requests.last?.value(for: "Range"), "no resume for line \(line)")
      let start = Int64(range.dropFirst("bytes=".count).dropLast()) ?? -1
      #expect(start > 0 && start <= cut, "resumed from \(start), cut at \(cut)")
      #expect(requests.last?.value(for: "If-Range") != nil)
    }
  }

  @Test(arguments: transports)
  func a_short_body_is_retried_and_exhausted_retries_mean_exactly_one_plus_retries_attempts(
    transport: String
  ) async throws {
    defer { cleanUp() }
    // No `size` in the manifest: a Content-Length beyond it would fail before the body.
    let lines = [
      try dataLine(
        server, "short", size: 50_000, seed: 1, options: ["lie": "1000", "times": "1"],
        declareSize: false),
      try dataLine(server, "cut", size: 50_000, seed: 2, options: ["drop": "10000"]),
      try dataLine(server, "broken", size: 50_000, seed: 3, options: ["status": "500"]),
      try dataLine(server, "fine", size: 50_000, seed: 4),
    ]
    try writeManifest(lines, in: directory)

    let run = try FaultRun(
      try await HaulBinary.run(runArguments(transport, ["--retries", "2"]), in: directory),
      reportIn: directory)

    #expect(run.result.status == 1)
    // The body ended short of its Content-Length: retried, and the retry completed it.
    #expect(run.status(1) == "ok", "\(run.describe(1))")
    #expect(run.attempts(1) == 2)
    #expect(run.retries(1).map { $0["code"] as? String } == ["protocol"])
    #expect(holdsContent(out("short.bin"), seed: 1, size: 50_000))

    // Cut after 10 000 bytes every time: three attempts, each resuming where the last ended.
    #expect(["protocol", "connection"].contains(run.code(2)), "\(run.describe(2))")
    #expect(run.attempts(2) == 3)
    #expect(run.retries(2).compactMap { $0["attempt"] as? Int } == [2, 3])
    #expect(server.requests(pathPrefix: "/data/cut").count == 3)
    #expect(!exists(out("cut.bin")))
    #expect(fileSize(out("cut.bin.haul-partial")) == 30_000)

    #expect(run.code(3) == "http_500", "\(run.describe(3))")
    #expect(run.attempts(3) == 3)
    #expect(server.requests(pathPrefix: "/data/broken").count == 3)
    #expect(!exists(out("broken.bin")))

    #expect(run.status(4) == "ok")
    #expect(run.attempts(4) == 1)
  }

  @Test(arguments: transports)
  func an_endless_body_past_the_manifest_size_fails_once_with_nothing_in_place(transport: String)
    async throws
  {
    defer { cleanUp() }
    let lines = [
      try dataLine(server, "endless", size: 60_000, seed: 4, options: ["endless": "1"])
    ]
    try writeManifest(lines, in: directory)

    let run = try FaultRun(
      try await HaulBinary.run(runArguments(transport, ["--retries", "3"]), in: directory),
      reportIn: directory)

    #expect(run.result.status == 1)
    #expect(run.code(1) == "size_mismatch", "\(run.describe(1))")
    #expect(run.attempts(1) == 1)
    #expect(run.retries(1).isEmpty)
    #expect(server.requests(pathPrefix: "/data/endless").count == 1)
    #expect(!exists(out("endless.bin")))
    // A partial from a source with other bytes is deleted, not kept for a resume.
    #expect(!exists(out("endless.bin.haul-partial")))
  }

  @Test(arguments: transports)
  func a_body_flooding_past_the_manifest_size_is_cut_off_as_its_size_is_crossed(
    transport: String
  ) async throws {
    defer { cleanUp() }
    let size: Int64 = 4 << 20
    let lines = [
      try dataLine(server, "flood", size: size, seed: 6, options: ["flood": "\(2 << 30)"])
    ]
    try writeManifest(lines, in: directory)

    let run = try FaultRun(
      try await HaulBinary.run(runArguments(transport, ["--retries", "3"]), in: directory),
      reportIn: directory)

    #expect(run.result.status == 1)
    #expect(run.code(1) == "size_mismatch", "\(run.describe(1))")
    #expect(run.attempts(1) == 1)
    #expect(!exists(out("flood.bin")))
    // The transfer stops at the size, not when the server does: what the server got to send
    // is the size plus what the sockets buffer, not the 2 GiB flood.
    let sent = server.bodyBytesSent(path: "/data/flood")
    #expect(sent < size + (64 << 20), "the server sent \(sent) bytes")
  }

  @Test(arguments: transports)
  func a_stalled_body_times_out_and_is_retried(transport: String) async throws {
    defer { cleanUp() }
    let stall = ["stall": "20000", "stallSeconds": "30"]
    let lines = [
      try dataLine(
        server, "stall-once", size: 80_000, seed: 5, options: stall.merging(["times": "1"]) { $1 }),
      try dataLine(server, "stall-always", size: 80_000, seed: 6, options: stall),
    ]
    try writeManifest(lines, in: directory)

    let run = try FaultRun(
      try await HaulBinary.run(
        runArguments(transport, ["--timeout", "1", "--retries", "1"]), in: directory),
      reportIn: directory)

    // The run's own clock (the report's `seconds`): uncut, each stall would last 30 s.
    let seconds = try #require(run.summary["seconds"] as? Double)
    #expect(seconds < 25, "a stall was not cut by --timeout: the run took \(seconds) s")
    #expect(run.result.status == 1)
    #expect(run.status(1) == "ok", "\(run.describe(1))")
    #expect(run.attempts(1) == 2)
    #expect(run.retries(1).map { $0["code"] as? String } == ["timeout"])
    #expect(holdsContent(out("stall-once.bin"), seed: 5, size: 80_000))
    // The retry continued from the stalled prefix.
    #expect(server.requests(pathPrefix: "/data/stall-once").last?.value(for: "Range") != nil)

    #expect(run.code(2) == "timeout", "\(run.describe(2))")
    #expect(run.attempts(2) == 2)
    #expect(!exists(out("stall-always.bin")))
  }

  @Test(arguments: transports)
  func a_one_byte_per_second_drip_is_slow_not_stalled(transport: String) async throws {
    defer { cleanUp() }
    // docs/behaviour.md, "Stalls": a transfer fails when no byte moves for --timeout; a byte a second keeps moving.
    let lines = [try dataLine(server, "drip", size: 4, seed: 7, options: ["drip": "1"])]
    try writeManifest(lines, in: directory)

    let run = try FaultRun(
      try await HaulBinary.run(
        runArguments(transport, ["--timeout", "3", "--retries", "0"]), in: directory),
      reportIn: directory)

    #expect(run.result.status == 0, "\(run.describe(1))")
    #expect(run.attempts(1) == 1)
    #expect(holdsContent(out("drip.bin"), seed: 7, size: 4))
  }

  @Test(arguments: transports)
  func a_header_block_over_the_limit_is_a_retried_protocol_error(transport: String) async throws {
    defer { cleanUp() }
    let lines = [
      try dataLine(
        server, "big-once", size: 10_000, seed: 8, options: ["bigHeaders": "300000", "times": "1"]),
      try dataLine(server, "big-always", size: 10_000, seed: 9, options: ["bigHeaders": "300000"]),
    ]
    try writeManifest(lines, in: directory)

    let run = try FaultRun(
      try await HaulBinary.run(runArguments(transport, ["--retries", "1"]), in: directory),
      reportIn: directory)

    #expect(run.result.status == 1)
    #expect(run.status(1) == "ok", "\(run.describe(1))")
    #expect(run.attempts(1) == 2)
    #expect(run.retries(1).map { $0["code"] as? String } == ["protocol"])
    #expect(holdsContent(out("big-once.bin"), seed: 8, size: 10_000))
    #expect(run.code(2) == "protocol", "\(run.describe(2))")
    #expect(run.attempts(2) == 2)
    #expect(!exists(out("big-always.bin")))
    // The refused head's body never reached the partial file.
    #expect(
      !exists(out("big-always.bin.haul-partial"))
        || fileSize(out("big-always.bin.haul-partial")) == 0)
  }

  @Test(arguments: transports)
  func retry_after_in_seconds_as_a_date_in_the_past_and_garbage(transport: String) async throws {
    defer { cleanUp() }
    // Far enough ahead that a late start of the run still sees it in the future.
    let soon = Date().addingTimeInterval(6)
    let lines = [
      try dataLine(
        server, "seconds", size: 1000, seed: 10,
        options: ["status": "503", "retryAfter": "1", "times": "1"]),
      try dataLine(
        server, "past", size: 1000, seed: 11,
        options: ["status": "429", "retryAfter": "Wed, 21 Oct 2015 07:28:00 GMT", "times": "1"]),
      try dataLine(
        server, "garbage", size: 1000, seed: 12,
        options: ["status": "503", "retryAfter": "soon-ish", "times": "1"]),
      try dataLine(
        server, "date", size: 1000, seed: 13,
        options: ["status": "429", "retryAfter": Self.httpDate(soon), "times": "1"]),
    ]
    try writeManifest(lines, in: directory)

    let run = try FaultRun(
      try await HaulBinary.run(runArguments(transport, ["--retries", "1"]), in: directory),
      reportIn: directory)

    #expect(run.result.status == 0, "\(run.result.stderr)")
    for line in 1...4 {
      #expect(run.status(line) == "ok", "\(run.describe(line))")
      #expect(run.attempts(line) == 2)
      #expect(run.delays(line).count == 1)
    }
    #expect(run.retries(1).first?["code"] as? String == "http_503")
    #expect(run.delays(1) == [1])
    #expect(run.retries(2).first?["code"] as? String == "http_429")
    #expect(run.delays(2) == [0])
    // Garbage is ignored: haul's own first backoff (1 s with half of it random).
    #expect(run.delays(3).allSatisfy { $0 >= 0.5 && $0 <= 1 }, "\(run.delays(3))")
    // An HTTP date ahead (second precision): at most the time from when the server had the
    // request to that date.
    let announced = Date(timeIntervalSince1970: soon.timeIntervalSince1970.rounded(.down))
    let asked = try #require(server.requests(pathPrefix: "/data/date").first?.start)
    let most = announced.timeIntervalSince(asked) + 0.1
    #expect(run.delays(4).allSatisfy { $0 > 0 && $0 <= most }, "\(run.delays(4)), \(most)")
    for (line, seed) in [(1, 10), (2, 11), (3, 12), (4, 13)] {
      #expect(
        holdsContent(
          out(["seconds", "past", "garbage", "date"][line - 1] + ".bin"),
          seed: UInt64(seed), size: 1000))
    }
  }

  @Test(arguments: transports)
  func retry_after_far_in_the_future_is_capped_at_ten_minutes(transport: String) async throws {
    defer { cleanUp() }
    // Two hosts: a 503 holds its host, and each entry must meet its own answer.
    let other = try FaultServer.started()
    defer { other.stop() }
    let lines = [
      try dataLine(
        server, "day", size: 1000, seed: 14, options: ["status": "503", "retryAfter": "86400"]),
      try dataLine(
        other, "century", size: 1000, seed: 15,
        options: ["status": "429", "retryAfter": "Fri, 01 Jan 2100 00:00:00 GMT"]),
    ]
    try writeManifest(lines, in: directory)
    let running = try HaulBinary.start(runArguments(transport, ["--retries", "3"]), in: directory)

    let stdout = running.stdoutPath
    @Sendable func retryEvents() -> [[String: Any]] {
      let text = (try? String(contentsOfFile: stdout, encoding: .utf8)) ?? ""
      return text.split(separator: "\n").compactMap { try? jsonObject(String($0)) }
        .filter { $0["type"] as? String == "retry" }
    }
    await whenOffPool({ retryEvents().count >= 2 }, timeout: 30)
    let retries = retryEvents()
    running.send(SIGINT)
    let result = try await running.finish(timeout: 20)

    #expect(result.status == 130, "\(result.stderr)")
    #expect(retries.count == 2, "\(retries)")
    #expect(retries.allSatisfy { $0["delay"] as? Double == 600 }, "\(retries)")
    let run = try FaultRun(result, reportIn: directory)
    #expect(run.code(1) == "cancelled")
    #expect(run.code(2) == "cancelled")
    #expect(server.requests(pathPrefix: "/data/").count == 1)
    #expect(other.requests(pathPrefix: "/data/").count == 1)
  }

  @Test(arguments: transports)
  func a_refused_connection_fails_its_entry_alone(transport: String) async throws {
    defer { cleanUp() }
    // Held until the end: a port merely freed could be taken by another test's server.
    let dead = try RefusingPort()
    defer { withExtendedLifetime(dead) {} }
    let lines = [
      try dataLine(server, "alive0", size: 20_000, seed: 16),
      try manifestLine(["url": "http://127.0.0.1:\(dead.port)/data/gone", "path": "gone.bin"]),
      try dataLine(server, "alive1", size: 20_000, seed: 17),
      try dataLine(server, "alive2", size: 20_000, seed: 18),
    ]
    try writeManifest(lines, in: directory)

    let run = try FaultRun(
      try await HaulBinary.run(runArguments(transport, ["--retries", "1"]), in: directory),
      reportIn: directory)

    #expect(run.result.status == 1)
    #expect(run.code(2) == "connection", "\(run.describe(2))")
    #expect(run.attempts(2) == 2)
    #expect(!exists(out("gone.bin")))
    for (line, name, seed) in [(1, "alive0", 16), (3, "alive1", 17), (4, "alive2", 18)] {
      #expect(run.status(line) == "ok", "\(run.describe(line))")
      #expect(run.attempts(line) == 1)
      #expect(holdsContent(out(name + ".bin"), seed: UInt64(seed), size: 20_000))
    }
  }

  static func httpDate(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return formatter.string(from: date)
  }
}
