import Foundation
import HaulCore
import HaulTestSupport
import Synchronization
import Testing

/// Entries handed out in order, counting how many the run has taken.
final class CountingEntries: Sequence, Sendable {
  let entries: [ManifestEntry]
  private let taken = Mutex(0)

  init(_ entries: [ManifestEntry]) { self.entries = entries }

  /// How many entries the run has read so far.
  var count: Int { taken.withLock { $0 } }

  func makeIterator() -> AnyIterator<ManifestEntry> {
    var index = 0
    return AnyIterator { [self] in
      guard index < entries.count else { return nil }
      defer { index += 1 }
      taken.withLock { $0 += 1 }
      return entries[index]
    }
  }
}

@Suite("How far ahead the run reads the manifest, with a scripted transport")
final class ReadAheadTests {
  let directory = FileManager.default.temporaryDirectory
    .appendingPathComponent("haul-read-ahead-\(UUID().uuidString)").path

  deinit { try? FileManager.default.removeItem(atPath: directory) }

  func entry(_ line: Int, host: String) -> ManifestEntry {
    let url = "http://\(host)/f\(line)"
    return ManifestEntry(
      line: line, text: "{\"url\":\"\(url)\"}", url: URL(string: url)!, path: "f\(line)")
  }

  func run(
    _ transport: ScriptedTransport, _ entries: CountingEntries, concurrency: Int, perHost: Int
  )
    async -> Int
  {
    let scheduler = Scheduler(
      transport: transport,
      options: SchedulerOptions(
        outputDirectory: directory, concurrency: concurrency, perHost: perHost, retries: 0))
    var finished = 0
    for await event in scheduler.run(entries) {
      if case .finished(let outcome) = event, outcome.status == .ok { finished += 1 }
    }
    return finished
  }

  @Test func with_every_slot_taken_the_manifest_is_read_only_a_few_batches_ahead() async {
    // Given 1,500 entries for one host that may take every one of 8 slots,
    let most = Mutex(0)
    let entries = CountingEntries((1...1500).map { entry($0, host: "h") })
    let transport = ScriptedTransport { _, number in
      // (how far the reading is ahead of the requests, at each request)
      most.withLock { $0 = max($0, entries.count - number) }
      return .init(status: 200, body: [1])
    }
    // when they run,
    let finished = await run(transport, entries, concurrency: 8, perHost: 8)
    // then all complete, and the manifest was never read more than a few batches (of at
    // most 256) ahead of the requests, where the lookahead alone would allow all 1,500.
    #expect(finished == 1500)
    #expect(most.withLock { $0 } <= 600)
  }

  @Test func a_slot_the_waiting_entries_cannot_take_keeps_the_manifest_read() async {
    // Given 600 entries for a host limited to 2 in flight, then 100 for another host,
    let entries = CountingEntries(
      (1...600).map { entry($0, host: "slow") } + (601...700).map { entry($0, host: "fast") })
    let firstFast = Mutex<Int?>(nil)
    let transport = ScriptedTransport { request, number in
      if request.url.host == "fast" { firstFast.withLock { $0 = $0 ?? number } }
      return .init(status: 200, body: [1])
    }
    // when they run with 8 slots in all,
    let finished = await run(transport, entries, concurrency: 8, perHost: 2)
    // then the other host's entries start while most of the first host's still wait: the
    // free slots keep the manifest read past the waiting entries.
    #expect(finished == 700)
    let first = firstFast.withLock { $0 }
    #expect(first != nil && first! < 100)
  }
}
