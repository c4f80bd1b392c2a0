import HaulCore
import Testing

@testable import haul

/// A bench run's tally: which runs count as having measured what they were run for.
@Suite struct BenchRunTests {
  func run(_ statuses: [EntryOutcome.Status]) -> BenchRun {
    var run = BenchRun(
      transport: "curl", level: "16", round: 1, seconds: 1, succeeded: 0, skipped: 0, failed: 0,
      bytes: 0, cpuSeconds: 0, peakRSSBytes: 0, latencies: [], firstFailure: nil)
    for (index, status) in statuses.enumerated() {
      run.add(
        EntryOutcome(
          line: index + 1, text: "{}", url: "http://h/\(index)", path: "f\(index)",
          operation: .download, status: status, bytes: status == .ok ? 10 : 0, attempts: 1,
          seconds: 0.1, sha256: nil,
          error: status == .failed ? TransferError(.http(500), "the server answered 500") : nil))
    }
    return run
  }

  @Test func a_run_succeeds_only_when_every_entry_was_transferred() {
    #expect(run([.ok, .ok]).succeededAll)
    // Each run goes into a fresh folder: a skip there measured nothing.
    #expect(!run([.skipped, .skipped]).succeededAll)
    #expect(!run([.ok, .skipped]).succeededAll)
    #expect(!run([.ok, .failed]).succeededAll)
    #expect(run([.ok, .skipped, .failed]).skipped == 1)
  }
}
