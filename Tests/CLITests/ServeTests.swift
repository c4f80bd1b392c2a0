import Foundation
import HaulCore
import HaulTestSupport
import Testing

@Suite("haul serve: jobs added, waited for, paused, resumed, cancelled, against nginx")
struct ServeTests {
  @Test func add_wait_and_list_a_job_then_a_rerun_fetches_nothing() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-serve")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      var lines: [String] = []
      var digests: [String: String] = [:]
      for index in 0..<20 {
        let sha = try nginx.createFile("s/f\(index).bin", size: 20_000, seed: UInt64(index))
        digests["f\(index).bin"] = sha
        lines.append(
          try manifestLine([
            "url": nginx.url("/s/f\(index).bin").absoluteString, "sha256": sha,
          ]))
      }
      try writeManifest(lines, in: directory)
      let daemon = try ServeDaemon(in: directory)
      let added = try await daemon.client(["add", "manifest.jsonl", "-o", "root/out", "--wait"])
      #expect(added.status == 0, "\(added.stderr)")
      let id = try #require(added.stdout.split(separator: "\n").first.map(String.init))
      #expect(id.count == 16 && id.allSatisfy(\.isHexDigit))
      #expect(added.stderr.contains("job \(id) complete: 20 ok, 0 skipped, 0 failed"))
      for (name, sha) in digests {
        #expect(try fileSHA256(directory.file("root/out/\(name)")) == sha)
      }
      let listed = try await daemon.client(["jobs"])
      #expect(listed.stdout.contains("\(id) complete  20/20"), "\(listed.stdout)")

      // The same manifest again: every file is in place, nothing is requested.
      let gets = nginx.accessLog().count
      let again = try await daemon.client(["add", "manifest.jsonl", "-o", "root/out", "--wait"])
      #expect(again.status == 0, "\(again.stderr)")
      #expect(again.stderr.contains("complete: 0 ok, 20 skipped, 0 failed"))
      #expect(nginx.accessLog().count == gets)

      let report = try await daemon.client(["status", id, "--json"])
      #expect(try jsonObject(report.stdout)["succeeded"] as? Int == 20)
      #expect(try await daemon.terminate()?.status == 0)
    }
  }

  @Test func haul_events_prints_each_event_once_as_a_json_line_in_id_order() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-serve-events")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      var lines: [String] = []
      for index in 0..<300 {
        _ = try nginx.createFile("e/f\(index).bin", size: 2_000, seed: UInt64(index))
        lines.append(nginx.url("/e/f\(index).bin").absoluteString)
      }
      try writeManifest(lines, in: directory)
      let daemon = try ServeDaemon(in: directory)
      // From the first event on, so that the reader misses nothing whenever it connects.
      let reader = try HaulBinary.start(
        ["events", "--socket", daemon.socket, "--since", "0"], in: directory)
      defer { if reader.isRunning { reader.send(SIGKILL) } }
      // Paced to a second or more, so that sampled progress events come between the others.
      let added = try await daemon.client(
        ["add", "manifest.jsonl", "-o", "root/out", "--max-rate", "500K", "--wait"])
      #expect(added.status == 0, "\(added.stderr)")
      let id = try #require(added.stdout.split(separator: "\n").first.map(String.init))
      // A bound for a failure only: the reader has every event once its job-ended is out.
      let deadline = Date().addingTimeInterval(180)
      var text = ""
      while Date() < deadline {
        text = (try? String(contentsOfFile: reader.stdoutPath, encoding: .utf8)) ?? ""
        if text.contains("\"event\": \"job-ended\"") { break }
        try await Task.sleep(for: .milliseconds(20))
      }
      reader.send(SIGTERM)
      let events = try text.split(separator: "\n").map { try jsonObject(String($0)) }
      // Every event but the sampled `progress` carries an id, and the ids only grow.
      let numbered = events.filter { $0["event"] as? String != "progress" }
      let ids = numbered.compactMap { $0["id"] as? Int }
      #expect(ids.count == numbered.count && ids == ids.sorted() && Set(ids).count == ids.count)
      #expect(!events.contains { $0["event"] as? String == "progress" && $0["id"] != nil })
      let done = events.filter { $0["event"] as? String == "entry-done" }
      let doneLines = Set(done.compactMap { ($0["data"] as? [String: Any])?["line"] as? Int })
      #expect(done.count == 300 && doneLines == Set(1...300), "\(done.count)")
      #expect(
        events.filter {
          $0["event"] as? String == "job-ended"
            && ($0["data"] as? [String: Any])?["id"] as? String == id
        }.count == 1)
      #expect(try await daemon.terminate()?.status == 0)
    }
  }

  @Test func a_bad_line_refuses_the_job_with_its_line_number_and_queues_nothing() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-serve-bad")
    defer { directory.remove() }
    try writeManifest(
      ["http://127.0.0.1:9/a", #"{"url": "ftp://x/y"}"#], in: directory)
    let daemon = try ServeDaemon(in: directory)
    let added = try await daemon.client(["add", "manifest.jsonl"])
    #expect(added.status == 2)
    #expect(added.stderr.contains("manifest:2:"), "\(added.stderr)")
    let listed = try await daemon.client(["jobs", "--json"])
    #expect(listed.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
    #expect(try await daemon.terminate()?.status == 0)
  }

  @Test func outputs_outside_the_roots_are_refused_also_through_a_symlink() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-serve-roots")
    defer { directory.remove() }
    let daemon = try ServeDaemon(in: directory)
    try FileManager.default.createDirectory(
      atPath: directory.file("elsewhere"), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: directory.file("root/link"), withDestinationPath: directory.file("elsewhere"))
    for output in [directory.file("elsewhere"), "root/link/inside", "root/../elsewhere"] {
      let added = try await daemon.client(["add", "http://127.0.0.1:9/a.bin", "-o", output])
      #expect(added.status == 2, "\(output)")
      #expect(added.stderr.contains("outside the daemon's roots") || added.stderr.contains("'..'"))
    }
    #expect(try await daemon.client(["jobs", "--json"]).stdout.hasPrefix("[]"))
    #expect(try await daemon.terminate()?.status == 0)
  }

  @Test func pause_keeps_the_partial_file_and_resume_continues_it_with_a_range() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-serve-pause")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      // The job's own rate cap makes 12 MB take a minute: however late a busy test pool
      // runs the pause, it lands in the middle. Raised before the resume, the rest is quick.
      let sha = try nginx.createFile("p/big.bin", size: 12 << 20, seed: 7)
      let daemon = try ServeDaemon(in: directory)
      let id = try await daemon.add([
        nginx.url("/p/big.bin").absoluteString, "-o", "root/p", "--max-rate", "200K",
      ])
      let partial = directory.file("root/p/big.bin.haul-partial")
      let done = directory.file("root/p/big.bin")
      _ = await whenOffPool({ fileSize(partial) >= 1 << 20 || exists(done) }, timeout: 120)
      let paused = try await daemon.client(["pause", id])
      #expect(paused.stdout.contains("\(id) paused"), "\(paused.stderr)")
      let stopped = try await daemon.until(id) { _ in
        !nginx.accessLog().isEmpty
      }
      #expect(stopped["state"] as? String == "paused")
      let kept = fileSize(partial)
      #expect(kept >= 1 << 20)
      #expect(!FileManager.default.fileExists(atPath: done))

      try daemon.patch(id, options: #"{"max-rate": "1G"}"#)
      let resumed = try await daemon.client(["resume", id])
      #expect(resumed.status == 0, "\(resumed.stderr)")
      let waited = try await daemon.client(["wait", id])
      #expect(waited.status == 0, "\(waited.stderr)")
      #expect(try fileSHA256(directory.file("root/p/big.bin")) == sha)
      let requests = nginx.accessLog(atLeast: 2).filter { $0.uri == "/p/big.bin" }
      #expect(requests.map(\.status) == [200, 206], "\(requests)")
      #expect(try await daemon.terminate()?.status == 0)
    }
  }

  @Test func cancel_removes_the_job_and_the_next_one_runs() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-serve-cancel")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      _ = try nginx.createFile("slow/long.bin", size: 30 << 20, seed: 1)
      let sha = try nginx.createFile("quick.bin", size: 1000, seed: 2)
      let daemon = try ServeDaemon(in: directory)
      // Paced by its own `--max-rate` (five minutes): whatever the test pool's stalls, the
      // long job is still running when it is cancelled.
      let long = try await daemon.add([
        nginx.url("/slow/long.bin").absoluteString, "-o", "root/c", "--max-rate", "100K",
      ])
      let quick = try await daemon.add([nginx.url("/quick.bin").absoluteString, "-o", "root/c"])
      #expect(try await daemon.job(quick)["state"] as? String == "waiting")
      let cancelled = try await daemon.client(["cancel", long])
      #expect(cancelled.stdout.contains("\(long) removed"))
      let waited = try await daemon.client(["wait", long, quick])
      // A cancelled job makes `wait` exit 1, as haul run's failures do.
      #expect(waited.status == 1, "\(waited.stderr)")
      #expect(waited.stderr.contains("job \(quick) complete"))
      #expect(try fileSHA256(directory.file("root/c/quick.bin")) == sha)
      #expect(
        FileManager.default.fileExists(atPath: directory.file("root/c/long.bin.haul-partial")))
      #expect(try await daemon.terminate()?.status == 0)
    }
  }

  /// A job's run keeps nothing of its output folder open once the job ended: not the
  /// folder, not `.haul/entries-00.lock`, not the `.haul/runs` read lock that would tell a
  /// later `haul run` there that another run is present; and it leaves no `.haul` there.
  @Test(arguments: transports)
  func an_ended_job_leaves_no_descriptor_under_its_output(_ transport: String) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-serve-fds")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      let daemon = try ServeDaemon(in: directory, extra: ["--transport", transport])
      for (index, folder) in ["a", "b"].enumerated() {
        let sha = try nginx.createFile("\(folder).bin", size: 5_000, seed: UInt64(index))
        let added = try await daemon.client([
          "add", nginx.url("/\(folder).bin").absoluteString, "-o", "root/\(folder)", "--wait",
        ])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try fileSHA256(directory.file("root/\(folder)/\(folder).bin")) == sha)
        let open = try await daemon.descriptors(under: directory.file("root/\(folder)"))
        #expect(open.isEmpty, "still open in the daemon: \(open)")
        let left = try FileManager.default.contentsOfDirectory(
          atPath: directory.file("root/\(folder)"))
        #expect(left == ["\(folder).bin"], "the job's .haul went with it: \(left)")
      }
      #expect(try await daemon.terminate()?.status == 0)
    }
  }

  @Test func no_daemon_is_a_usage_error() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-serve-none")
    defer { directory.remove() }
    let result = try await HaulBinary.run(
      ["jobs", "--socket", directory.file("nothing.sock")], in: directory)
    #expect(result.status == 2)
    #expect(result.stderr.contains("no daemon"))
  }
}

/// The SHA-256 of the file at `path`, in hex.
func fileSHA256(_ path: String) throws -> String {
  SHA256.hex(of: try Data(contentsOf: URL(fileURLWithPath: path)))
}
