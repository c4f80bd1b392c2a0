import Foundation
import HaulTestSupport
import Synchronization
import Testing

@testable import HaulServe

/// The daemon's decisions over a real journal and a scripted engine: jobs run in queue
/// order, pause and cancel stop runs, a restart carries on what was unfinished, and event
/// ids never go back.
@Suite struct DaemonTests {
  private func daemon(_ directory: TemporaryDirectory, _ engine: ScriptedJobEngine) throws -> Daemon
  {
    try FileManager.default.createDirectory(
      atPath: directory.file("root"), withIntermediateDirectories: true)
    var configuration = Daemon.Configuration(
      stateDirectory: directory.file("state"), roots: try Roots([directory.file("root")]))
    configuration.flushInterval = 0.01
    configuration.progressInterval = 0.02
    let daemon = try Daemon(configuration: configuration, engine: engine)
    daemon.start()
    return daemon
  }

  private func urls(_ count: Int) -> JobSubmission {
    JobSubmission(
      source: .urls((1...count).map { "http://127.0.0.1:9/f\($0)" }), output: nil,
      options: JobOptions())
  }

  private func state(_ daemon: Daemon, _ id: String) throws -> String {
    try daemon.job(id)["state"] as? String ?? ""
  }

  private func until(_ daemon: Daemon, _ id: String, is state: String) async throws {
    // A bound for a failure only: a loaded machine may take long to get there.
    let deadline = Date().addingTimeInterval(180)
    while try self.state(daemon, id) != state, Date() < deadline {
      try await Task.sleep(for: .milliseconds(5))
    }
    #expect(try self.state(daemon, id) == state)
  }

  @Test func jobsRunOneAfterAnotherAndEndCompleteOrInError() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-daemon")
    defer { directory.remove() }
    let engine = ScriptedJobEngine(failing: [2])
    let daemon = try daemon(directory, engine)
    let first = try daemon.submit(urls(3))["id"] as! String
    let second = try daemon.submit(urls(2))["id"] as! String
    #expect(try state(daemon, second) == "waiting")
    try await until(daemon, first, is: "error")
    try await until(daemon, second, is: "error")
    let job = try daemon.job(first)
    #expect(job["succeeded"] as? Int == 2 && job["failed"] as? Int == 1)
    #expect((job["failures"] as? [Any])?.count == 1)
    await daemon.shutDown()
  }

  @Test func aBadManifestOrOptionQueuesNothing() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-daemon-bad")
    defer { directory.remove() }
    let daemon = try daemon(directory, ScriptedJobEngine())
    #expect(throws: ServiceError(.manifest, "manifest:2: not a URL")) {
      try daemon.submit(
        JobSubmission(source: .text("http://x/a\nftp://x/b\n"), output: nil, options: JobOptions()))
    }
    #expect(throws: ServiceError.self) {
      try daemon.submit(
        JobSubmission(
          source: .urls(["http://x/a"]), output: nil,
          options: JobOptions(["max-rate": .text("bad")])))
    }
    #expect(daemon.listJobs().isEmpty)
    let manifests = try FileManager.default.contentsOfDirectory(
      atPath: directory.file("state/jobs"))
    #expect(manifests.isEmpty)
    await daemon.shutDown()
  }

  @Test func pauseStopsTheRunAndResumeFinishesWithoutMovingAnEntryTwice() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-daemon-pause")
    defer { directory.remove() }
    let engine = ScriptedJobEngine(entrySeconds: 0.02)
    let daemon = try daemon(directory, engine)
    let id = try daemon.submit(urls(50))["id"] as! String
    try await Task.sleep(for: .milliseconds(100))
    #expect(try daemon.pause(id)["state"] as? String == "paused")
    let movedAtPause = engine.moved.withLock { $0.count }
    #expect(movedAtPause < 50)
    _ = try daemon.resume(id)
    try await until(daemon, id, is: "complete")
    #expect(engine.moved.withLock { $0.count == 50 && $0.values.allSatisfy { $0 == 1 } })
    // The report counts a file fetched before the pause as ok, not as skipped.
    #expect(try daemon.job(id)["succeeded"] as? Int == 50)
    await daemon.shutDown()
  }

  @Test func aRestartCarriesOnTheActiveJobAndEventIDsKeepGrowing() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-daemon-restart")
    defer { directory.remove() }
    let engine = ScriptedJobEngine(entrySeconds: 0.02)
    var daemon = try daemon(directory, engine)
    let done = try daemon.submit(urls(2))["id"] as! String
    try await until(daemon, done, is: "complete")
    let id = try daemon.submit(urls(40))["id"] as! String
    let paused = try daemon.submit(urls(1))["id"] as! String
    _ = try daemon.pause(paused)
    try await Task.sleep(for: .milliseconds(150))
    let lastBefore = daemon.stats()["last_event_id"] as! Int64
    await daemon.shutDown()
    #expect(engine.moved.withLock { $0.count } < 42)

    daemon = try self.daemon(directory, engine)
    try await until(daemon, id, is: "complete")
    #expect(try state(daemon, done) == "complete")
    #expect(try state(daemon, paused) == "paused")
    // Nothing finished before the restart was moved again.
    #expect(engine.moved.withLock { $0.values.allSatisfy { $0 == 1 } })
    #expect(daemon.stats()["last_event_id"] as! Int64 > lastBefore)
    let replay = try daemon.journal.events(after: 0, limit: 100_000)
    #expect(replay.map(\.id) == replay.map(\.id).sorted())
    await daemon.shutDown()
  }

  @Test func changedOptionsOfAnActiveJobRestartItsRunWithThem() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-daemon-modify")
    defer { directory.remove() }
    let engine = ScriptedJobEngine(entrySeconds: 0.02)
    let daemon = try daemon(directory, engine)
    let id = try daemon.submit(urls(30))["id"] as! String
    let queued = try daemon.submit(urls(1))["id"] as! String
    try await Task.sleep(for: .milliseconds(60))
    let changed = try daemon.modify(
      id, position: nil, options: JobOptions(["max-rate": .text("10M")]))
    #expect((changed["options"] as? [String: Any])?["max-rate"] as? String == "10M")
    #expect(throws: ServiceError.self) {
      try daemon.modify(id, position: nil, options: JobOptions(["max-rate": .text("bad")]))
    }
    // The restarted run comes before the job queued behind it, and moves nothing twice.
    try await until(daemon, id, is: "complete")
    #expect(!engine.moved.withLock { $0.keys.contains("\(queued)#1") })
    try await until(daemon, queued, is: "complete")
    #expect(engine.moved.withLock { $0.count == 31 && $0.values.allSatisfy { $0 == 1 } })
    _ = try daemon.modify(queued, position: 0, options: nil)
    #expect(daemon.listJobs().first?["id"] as? String == queued)
    await daemon.shutDown()
  }

  @Test func cancellingTheActiveJobStartsTheNextAndTheCancelledOneEndsRemoved() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-daemon-cancel")
    defer { directory.remove() }
    let daemon = try daemon(directory, ScriptedJobEngine(entrySeconds: 0.05))
    let long = try daemon.submit(urls(100))["id"] as! String
    let next = try daemon.submit(urls(2))["id"] as! String
    try await Task.sleep(for: .milliseconds(60))
    _ = try daemon.cancel(long)
    try await until(daemon, next, is: "complete")
    #expect(try state(daemon, long) == "removed")
    #expect(throws: ServiceError.self) { try daemon.resume(long) }
    try daemon.forget(long)
    #expect(throws: ServiceError.self) { try daemon.job(long) }
    await daemon.shutDown()
  }
}

/// A crash after any commit: the state directory as each commit left it, restarted.
@Suite struct DaemonCrashTests {
  /// What the test knew when a commit happened: the jobs already answered, the files in
  /// place, the newest event id.
  struct Snapshot: Sendable {
    var folder: String
    var answered: Set<String>
    var done: Set<String>
  }

  @Test func aRestartAfterAnyCommitHasEveryAnsweredJobAndEventIDsGoOnGrowing() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-daemon-crash")
    defer { directory.remove() }
    try FileManager.default.createDirectory(
      atPath: directory.file("root"), withIntermediateDirectories: true)
    let engine = ScriptedJobEngine(entrySeconds: 0.002)
    let answered = Mutex<Set<String>>([])
    let snapshots = Mutex<[Snapshot]>([])
    var configuration = Daemon.Configuration(
      stateDirectory: directory.file("state"), roots: try Roots([directory.file("root")]))
    configuration.flushInterval = 0.005
    let state = directory.file("state")
    configuration.afterCommit = {
      let folder = directory.file("snapshots/\(snapshots.withLock { $0.count })")
      try? FileManager.default.createDirectory(
        atPath: directory.file("snapshots"), withIntermediateDirectories: true)
      try? FileManager.default.copyItem(atPath: state, toPath: folder)
      snapshots.withLock {
        $0.append(
          Snapshot(
            folder: folder, answered: answered.withLock { $0 },
            done: engine.done.withLock { $0 }))
      }
    }
    let daemon = try Daemon(configuration: configuration, engine: engine)
    daemon.start()
    var ids: [String] = []
    for count in [3, 2, 4] {
      let id =
        try daemon.submit(
          JobSubmission(
            source: .urls((1...count).map { "http://127.0.0.1:9/f\($0)" }), output: nil,
            options: JobOptions()))["id"] as! String
      answered.withLock { _ = $0.insert(id) }
      ids.append(id)
    }
    _ = try daemon.pause(ids[2])
    _ = try daemon.cancel(ids[1])
    _ = try daemon.resume(ids[2])
    let deadline = Date().addingTimeInterval(180)
    while ids.contains(where: { (try? daemon.job($0)["ended"] as? String) == nil }),
      Date() < deadline
    {
      try await Task.sleep(for: .milliseconds(5))
    }
    await daemon.shutDown()
    let taken = snapshots.withLock { $0 }
    #expect(taken.count > 10)

    for (index, snapshot) in taken.enumerated() {
      let restarted = ScriptedJobEngine(entrySeconds: 0.001)
      restarted.done.withLock { $0 = snapshot.done }
      var again = Daemon.Configuration(
        stateDirectory: snapshot.folder, roots: try Roots([directory.file("root")]))
      again.flushInterval = 0.005
      let daemon = try Daemon(configuration: again, engine: restarted)
      let lastBefore = daemon.stats()["last_event_id"] as! Int64
      let before = try daemon.journal.events(after: 0, limit: 100_000).map(\.id)
      daemon.start()
      let listed = Set(daemon.listJobs().compactMap { $0["id"] as? String })
      #expect(snapshot.answered.isSubset(of: listed), "snapshot \(index)")
      // Every job ends (or stays paused, as it was left), and nothing in place moves again.
      let end = Date().addingTimeInterval(180)
      while daemon.listJobs().contains(where: {
        ["waiting", "active"].contains($0["state"] as? String ?? "")
      }), Date() < end {
        try await Task.sleep(for: .milliseconds(5))
      }
      #expect(
        !daemon.listJobs().contains { ["waiting", "active"].contains($0["state"] as? String) },
        "snapshot \(index)")
      #expect(
        restarted.moved.withLock { moved in
          moved.keys.allSatisfy { !snapshot.done.contains($0) }
        }, "snapshot \(index)")
      // The events the snapshot held stay, and every new one comes after all of them.
      let replay = try daemon.journal.events(after: 0, limit: 100_000).map(\.id)
      #expect(replay.starts(with: before), "snapshot \(index)")
      #expect(replay.dropFirst(before.count).allSatisfy { $0 > lastBefore }, "snapshot \(index)")
      #expect(replay == replay.sorted() && Set(replay).count == replay.count)
      await daemon.shutDown()
    }
  }
}
