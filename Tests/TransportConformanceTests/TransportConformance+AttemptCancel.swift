import Foundation
import HaulCore
import HaulTestSupport
import Synchronization
import Testing

extension TransportConformance {
  /// Where an entry's attempt stands when its run is cancelled: each state of the attempt
  /// machine (`AttemptMachine`) and of the loop around it (`AttemptLoop.retry`) that waits
  /// on something outside haul. The steps between (preparing, completing, checking a
  /// digest) run without waiting on the network and are passed through on the way to these.
  enum CancelPoint: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// `idle`: admitted, waiting for a slot the first entry holds.
    case waitingForSlot
    /// `sending`: the first attempt's exchange in flight (on the engine, for curl).
    case sending
    /// Between attempts: the back-off a 503's `Retry-After` asks for.
    case backingOff
    /// `sending` on the slow path: the attempt on a mirror, in a task.
    case sendingToMirror
    /// `split`: a segmented download's segments in flight, each in a slot of its own.
    case split

    var testDescription: String { rawValue }
  }

  /// A run cancelled with an entry at each `CancelPoint` leaves nothing behind: once
  /// `Scheduler.run` returned, no slot is taken, no entry task or timer is left, and the
  /// transport shut down and the scheduler dropped, no descriptor under the output folder
  /// is open (the partial files' included). Every entry ends `cancelled`, its partial file
  /// kept for the next run. A daemon's job paused or cancelled is such a run cancelled.
  @Test(arguments: TransportKind.allCases, CancelPoint.allCases)
  func a_run_cancelled_at_each_state_of_an_attempt_leaves_nothing_behind(
    _ kind: TransportKind, point: CancelPoint
  ) async throws {
    try await withFaultServer { server in
      try await withScratch { scratch in
        let folder = scratch.file("out")
        // Stalls after its first 64 KiB, for far longer than the test.
        let stalled = ["stall": "65536", "stallSeconds": "60"]
        let size: Int64 = 4 << 20
        var options = SchedulerOptions(
          outputDirectory: folder, concurrency: 4, retries: 3, stallTimeout: 60)
        let entries: [ManifestEntry]
        let ready: @Sendable ([TransferEvent]) -> Bool
        switch point {
        case .waitingForSlot:
          options.concurrency = 1
          entries = [
            Self.entry(1, server.dataURL("held", size: size, seed: 1, options: stalled)),
            Self.entry(2, server.dataURL("waiting", size: 2_000, seed: 2)),
          ]
          ready = { _ in server.requests(pathPrefix: "/data/held").count == 1 }
        case .sending:
          entries = [
            Self.entry(1, server.dataURL("sending", size: size, seed: 1, options: stalled))
          ]
          ready = { _ in server.requests(pathPrefix: "/data/sending").count == 1 }
        case .backingOff:
          entries = [
            Self.entry(
              1,
              server.dataURL(
                "busy", size: 2_000, seed: 1, options: ["status": "503", "retryAfter": "60"]))
          ]
          ready = { events in events.contains { if case .retry = $0 { true } else { false } } }
        case .sendingToMirror:
          entries = [
            Self.entry(
              1, server.dataURL("gone", size: size, seed: 1, options: ["status": "404"]),
              mirrors: [server.dataURL("mirror", size: size, seed: 1, options: stalled)])
          ]
          ready = { _ in server.requests(pathPrefix: "/data/mirror").count == 1 }
        case .split:
          options.segments = 2
          options.minSegmentSize = 1 << 20
          entries = [Self.entry(1, server.dataURL("parts", size: size, seed: 1, options: stalled))]
          ready = { _ in
            server.requests(pathPrefix: "/data/parts").filter {
              $0.method == "GET" && ($0.value(for: "Range") ?? "bytes=0-0") != "bytes=0-0"
            }.count == 2
          }
        }
        let (summary, held, holdings) = try await kind.withTransport { transport in
          await Self.runCancelled(entries, options: options, transport, when: ready)
        }
        // What the run held as it was cancelled: the state was reached.
        switch point {
        case .waitingForSlot, .sending: #expect(held.slots == 1)
        case .backingOff: #expect(held.slots == 0 && held.tasks == 1)
        case .sendingToMirror: #expect(held.slots == 1 && held.tasks == 1)
        case .split: #expect(held.slots == 2 && held.tasks == 1)
        }
        #expect(summary?.cancelled == true)
        #expect(summary?.failed == entries.count)
        #expect(holdings == RunHoldings.none, "still held: \(holdings)")
        let open = await Self.openDescriptors(under: folder)
        #expect(open.isEmpty, "still open: \(open)")
      }
    }
  }

  private static func entry(_ line: Int, _ url: URL, mirrors: [URL] = []) -> ManifestEntry {
    ManifestEntry(
      line: line, text: "{\"url\":\"\(url)\"}", url: url, mirrors: mirrors, path: "f\(line).bin")
  }

  /// Runs `entries` through a scheduler of its own, cancels the run once `ready` holds for
  /// the events so far (asked every 10 ms, for at most 20 s), and returns the run's summary,
  /// what the run held as it was cancelled and, once they are all given back (or after a
  /// bound), what it still held after it ended.
  private static func runCancelled(
    _ entries: [ManifestEntry], options: SchedulerOptions, _ transport: any Transport,
    when ready: @escaping @Sendable ([TransferEvent]) -> Bool
  ) async -> (RunSummary?, held: RunHoldings, after: RunHoldings) {
    let scheduler = Scheduler(transport: transport, options: options)
    let seen = Mutex<[TransferEvent]>([])
    let canceller = Task {
      for _ in 0..<2_000 {
        if ready(seen.withLock { $0 }) { break }
        try? await Task.sleep(for: .milliseconds(10))
      }
      let held = await scheduler.holdings()
      await scheduler.cancel()
      return held
    }
    var summary: RunSummary?
    for await event in scheduler.run(entries) {
      switch event {
      case .summary(let value): summary = value
      case .progress: break
      default: seen.withLock { $0.append(event) }
      }
    }
    let held = await canceller.value
    // The last task forgets itself a moment after its entry's end was told.
    var holdings = await scheduler.holdings()
    for _ in 0..<200 where holdings != RunHoldings.none {
      try? await Task.sleep(for: .milliseconds(50))
      holdings = await scheduler.holdings()
    }
    return (summary, held, holdings)
  }
}
