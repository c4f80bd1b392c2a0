import Foundation
import HaulCore
import HaulTestSupport
import Testing

@Suite("haul serve: kill -9 in the middle of a job, SIGTERM, and the event log across restarts")
struct ServeRecoveryTests {
  @Test func kill_9_in_the_middle_loses_nothing_and_fetches_no_file_twice() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-serve-kill")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      var lines: [String] = []
      var digests: [String: String] = [:]
      for index in 0..<2000 {
        let name = "m/f\(index).bin"
        digests["f\(index).bin"] = try nginx.createFile(name, size: 2000, seed: UInt64(index))
        lines.append(nginx.url("/" + name).absoluteString)
      }
      let bigSHA = try nginx.createFile("k/large.bin", size: 12 << 20, seed: 99)
      try writeManifest(lines, named: "small.txt", in: directory)
      let daemon = try ServeDaemon(in: directory, extra: ["-j", "4"])
      // Its own rate cap makes the large file take a minute, so a busy test pool cannot
      // make the kill late; raised after the restart, the rest is quick.
      let large = try await daemon.add([
        nginx.url("/k/large.bin").absoluteString, "-o", "root/k", "--max-rate", "200K",
      ])
      let small = try await daemon.add(["small.txt", "-o", "root/k"])
      // Mid-way through the large file, with the small job still queued behind it.
      let partial = directory.file("root/k/large.bin.haul-partial")
      let done = directory.file("root/k/large.bin")
      _ = await whenOffPool(
        { fileSize(partial) >= 2 << 20 || exists(done) }, timeout: 120,
        then: { daemon.process?.send(SIGKILL) })
      try await daemon.kill9()
      #expect(fileSize(partial) > 0)
      #expect(!FileManager.default.fileExists(atPath: done))

      try daemon.start()
      try daemon.patch(large, options: #"{"max-rate": "1G"}"#)
      let waited = try await daemon.client(["wait", large, small], timeout: 180)
      #expect(waited.status == 0, "\(waited.stderr)")
      #expect(try fileSHA256(directory.file("root/k/large.bin")) == bigSHA)
      for (name, sha) in digests {
        #expect(try fileSHA256(directory.file("root/k/\(name)")) == sha, "\(name)")
      }
      // The large file resumed with ranges (after the kill, and after its run restarted
      // with the new cap), never from the first byte; no small file was fetched twice.
      let log = nginx.accessLog(atLeast: 2002)
      let large200 = log.filter { $0.uri == "/k/large.bin" && $0.status == 200 }
      let large206 = log.filter { $0.uri == "/k/large.bin" && $0.status == 206 }
      #expect(
        large200.count == 1 && !large206.isEmpty,
        "\(log.filter { $0.uri == "/k/large.bin" })")
      var seen: [String: Int] = [:]
      for entry in log where entry.uri.hasPrefix("/m/") { seen[entry.uri, default: 0] += 1 }
      #expect(seen.count == 2000)
      #expect(seen.values.allSatisfy { $0 == 1 }, "\(seen.filter { $0.value > 1 })")
      #expect(try await daemon.terminate()?.status == 0)
    }
  }

  @Test func kill_9_during_many_small_files_fetches_none_twice() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-serve-kill-small")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in try await killSmallFiles(nginx, directory) }
  }

  /// The body of `kill_9_during_many_small_files_fetches_none_twice`, outside the fixture's
  /// closure (Swift 6.3's region checker crashes on it there).
  private func killSmallFiles(_ nginx: NginxFixture, _ directory: TemporaryDirectory)
    async throws
  {
    var lines: [String] = []
    for index in 0..<2000 {
      let name = "n/g\(index).bin"
      _ = try nginx.createFile(name, size: 3000, seed: UInt64(index))
      lines.append(nginx.url("/" + name).absoluteString)
    }
    try writeManifest(lines, named: "small.txt", in: directory)
    let daemon = try ServeDaemon(in: directory, extra: ["-j", "2"])
    // 100 KiB/s: about 33 of these files a second (a minute for all), so the kill comes in
    // the middle even when a loaded machine notices the 300th request late; after the
    // restart a `PATCH` of `max-rate` lets the rest go at once.
    let id = try await daemon.add(["small.txt", "-o", "root/n", "--max-rate", "100K"])
    _ = await whenOffPool(
      { nginx.accessLog().count >= 300 }, timeout: 120, every: 0.01,
      then: { daemon.process?.send(SIGKILL) })
    try await daemon.kill9()
    // The kill came in the middle: the job had files left to fetch.
    let left = 2000 - ServeDaemon.filesInPlace(directory.file("root/n"))
    #expect(left > 0, "the job ended before the kill")
    try daemon.start()
    try daemon.patch(id, options: #"{"max-rate": "1G"}"#)
    let waited = try await daemon.client(["wait", id], timeout: 180)
    #expect(waited.status == 0, "\(waited.stderr)")
    var seen: [String: Int] = [:]
    for entry in nginx.accessLog(atLeast: 2000) where entry.status == 200 {
      seen[entry.uri, default: 0] += 1
    }
    #expect(seen.count == 2000)
    // A file whose request was cut by the kill, or by the restart of the run for the new
    // `max-rate` (two in flight each time), has no complete copy in place: it is asked
    // again. Any other twice would be a file fetched again after it was in place.
    let twice = seen.filter { $0.value > 1 }
    #expect(twice.count <= 4, "\(twice)")
    #expect(try await daemon.terminate()?.status == 0)
  }

  @Test func event_ids_increase_across_restarts_and_a_reconnect_replays_what_it_missed()
    async throws
  {
    let directory = try TemporaryDirectory(prefix: "haul-serve-events")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      _ = try nginx.createFile("e/one.bin", size: 1000, seed: 1)
      _ = try nginx.createFile("e/two.bin", size: 1000, seed: 2)
      let daemon = try ServeDaemon(in: directory)
      let first = try await daemon.add([nginx.url("/e/one.bin").absoluteString, "--wait"])
      let before = try Self.events(daemon, since: 0)
      let ids = before.compactMap { $0["id"] as? Int }
      #expect(ids == ids.sorted() && Set(ids).count == ids.count && !ids.isEmpty)
      #expect(before.contains { $0["event"] as? String == "job-ended" })
      #expect(before.contains { $0["event"] as? String == "entry-done" })
      // A client that follows jobs, not files, gets the same events without the entries.
      let jobsOnly = try Self.events(daemon, since: 0, query: "?entries=failed")
      #expect(
        jobsOnly.map { $0["event"] as? String }
          == before.map { $0["event"] as? String }
          .filter { $0 != "entry-started" && $0 != "entry-done" })
      let last = try #require(ids.last)

      #expect(try await daemon.terminate()?.status == 0)
      try daemon.start()
      _ = try await daemon.add([nginx.url("/e/two.bin").absoluteString, "--wait"])
      // A client that was away since `last` gets every event after it, and only those.
      let after = try Self.events(daemon, since: last)
      let newIDs = after.compactMap { $0["id"] as? Int }
      #expect(!newIDs.isEmpty && newIDs.allSatisfy { $0 > last }, "\(newIDs)")
      #expect(after.contains { $0["event"] as? String == "job-added" })
      #expect(!after.contains { ($0["data"] as? [String: Any])?["job"] as? String == first })
      #expect(try await daemon.terminate()?.status == 0)
    }
  }

  /// The events after `since` that the daemon replays, read for a moment over the socket.
  static func events(_ daemon: ServeDaemon, since: Int, query: String = "") throws
    -> [[String: Any]]
  {
    let output = try ServeDaemon.run(
      "/usr/bin/curl",
      [
        "-s", "-N", "--max-time", "1", "--unix-socket", daemon.socket,
        "-H", "Last-Event-ID: \(since)", "http://localhost/v1/events" + query,
      ])
    var events: [[String: Any]] = []
    for block in output.components(separatedBy: "\n\n") {
      var event: [String: Any] = [:]
      for line in block.split(separator: "\n") {
        if line.hasPrefix("id: ") { event["id"] = Int(line.dropFirst(4)) }
        if line.hasPrefix("event: ") { event["event"] = String(line.dropFirst(7)) }
        if line.hasPrefix("data: ") { event["data"] = try jsonObject(String(line.dropFirst(6))) }
      }
      if event["event"] != nil { events.append(event) }
    }
    return events
  }
}
