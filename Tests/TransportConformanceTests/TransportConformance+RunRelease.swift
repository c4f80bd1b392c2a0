import Foundation
import HaulCore
import HaulTestSupport
import Testing

extension TransportConformance {
  /// A run that is over keeps nothing of its output folder open: once `Scheduler.run`
  /// returned, the transport shut down and the scheduler was dropped, the folder's
  /// descriptor, `.haul/entries-00.lock` and the `.haul/runs` read lock are closed (a
  /// daemon runs one scheduler per job, for weeks, and a later run must not see this one).
  @Test(arguments: TransportKind.allCases, [false, true])
  func a_finished_run_leaves_no_descriptor_under_its_folder(
    _ kind: TransportKind, fsync: Bool
  ) async throws {
    try await withFaultServer { server in
      try await withScratch { scratch in
        let folder = scratch.file("out")
        let entries = (1...3).map { line in
          Self.entry(line, server.dataURL("f\(line)", size: 2_000, seed: UInt64(line)))
        }
        let summary = try await kind.withTransport { transport in
          await Self.runAndDrop(entries, into: folder, fsync: fsync, transport)
        }
        #expect(summary?.succeeded == 3)
        for line in 1...3 {
          let sha = TestContent.sha256(seed: UInt64(line), count: 2_000)
          #expect(
            FileDigest(path: "\(folder)/f\(line).bin") == FileDigest(length: 2_000, sha256: sha))
        }
        let open = await Self.openDescriptors(under: folder)
        #expect(open.isEmpty, "still open: \(open)")
      }
    }
  }

  /// The same for a run that ends otherwise: an entry failed (its end taken by a task, the
  /// slow path) and the run was cancelled with a transfer in flight, as a paused job is.
  @Test(arguments: TransportKind.allCases)
  func a_cancelled_run_leaves_no_descriptor_under_its_folder(_ kind: TransportKind) async throws {
    try await withFaultServer { server in
      try await withScratch { scratch in
        let folder = scratch.file("out")
        let entries = [
          Self.entry(1, server.dataURL("ok", size: 2_000, seed: 1)),
          Self.entry(2, server.dataURL("gone", size: 2_000, seed: 2, options: ["status": "404"])),
          Self.entry(3, server.dataURL("endless", size: 0, seed: 3, options: ["endless": "1"])),
        ]
        let summary = try await kind.withTransport { transport in
          await Self.runAndDrop(entries, into: folder, fsync: false, cancelOnLine: 3, transport)
        }
        #expect(summary?.cancelled == true)
        let open = await Self.openDescriptors(under: folder)
        #expect(open.isEmpty, "still open: \(open)")
      }
    }
  }

  private static func entry(_ line: Int, _ url: URL) -> ManifestEntry {
    ManifestEntry(line: line, text: "{\"url\":\"\(url)\"}", url: url, path: "f\(line).bin")
  }

  /// Runs `entries` through a scheduler of its own, which is gone when this returns, and
  /// cancels the run once entry `cancelOnLine` started; returns the run's summary.
  private static func runAndDrop(
    _ entries: [ManifestEntry], into folder: String, fsync: Bool, cancelOnLine: Int? = nil,
    _ transport: any Transport
  ) async -> RunSummary? {
    let scheduler = Scheduler(
      transport: transport,
      options: SchedulerOptions(outputDirectory: folder, concurrency: 4, retries: 0, fsync: fsync))
    var summary: RunSummary?
    for await event in scheduler.run(entries) {
      switch event {
      case .started(let entry) where entry.line == cancelOnLine: await scheduler.cancel()
      case .summary(let value): summary = value
      default: break
      }
    }
    return summary
  }

  /// The targets of this process's descriptors that lie under `folder` (itself included),
  /// once there are none or after a generous bound: a run's last objects may be released
  /// on another thread a moment after it returned.
  static func openDescriptors(under folder: String) async -> [String] {
    let root = URL(fileURLWithPath: folder).resolvingSymlinksInPath().path
    var found: [String] = []
    for _ in 0..<200 {
      found = descriptorTargets().filter { $0 == root || $0.hasPrefix(root + "/") }
      if found.isEmpty { return [] }
      try? await Task.sleep(for: .milliseconds(50))
    }
    return found
  }

  /// Where each of this process's open descriptors points (`/proc/self/fd`).
  private static func descriptorTargets() -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return names.compactMap {
      try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")
    }
  }
}
