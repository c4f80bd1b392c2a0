import Foundation
import HaulCore
import HaulTestSupport
import Testing

extension TransportConformance {
  /// An entry the transport's engine carries never gets a task: a run of small files
  /// through curl (an engine transport) starts none, while through URLSession (no engine)
  /// each entry runs as a task of the run's group. The small-file speed rests on the first.
  @Test(arguments: TransportKind.allCases)
  func entries_the_engine_carries_start_no_task(_ kind: TransportKind) async throws {
    try await withFaultServer { server in
      try await withScratch { scratch in
        let count = 20
        let entries = (1...count).map { line in
          let url = server.dataURL("f\(line)", size: 2_000, seed: UInt64(line))
          return ManifestEntry(
            line: line, text: "{\"url\":\"\(url)\"}", url: url, path: "f\(line).bin")
        }
        let (summary, tasks) = try await kind.withTransport { transport in
          let scheduler = Scheduler(
            transport: transport,
            options: SchedulerOptions(outputDirectory: scratch.file("out"), concurrency: 4))
          var summary: RunSummary?
          for await event in scheduler.run(entries) {
            if case .summary(let value) = event { summary = value }
          }
          return (summary, await scheduler.tasksStarted())
        }
        #expect(summary?.succeeded == count)
        #expect(tasks == (kind == .curl ? 0 : count))
      }
    }
  }
}
