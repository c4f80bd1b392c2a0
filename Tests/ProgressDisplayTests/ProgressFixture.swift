import HaulCore

@testable import haul

/// Runs as the scheduler would report them, for the display's pure tests.
enum ProgressFixture {
  static let kib: Int64 = 1024
  static let gib: Int64 = 1 << 30

  static func active(
    line: Int, path: String, bytes: Int64, size: Int64?,
    operation: ManifestEntry.Operation = .download
  ) -> ProgressSnapshot.Active {
    ProgressSnapshot.Active(
      entry: EntryInfo(line: line, path: path, operation: operation, expectedBytes: size),
      bytes: bytes)
  }

  /// The run: 300 files of 10 KiB, then 2 × 1 GiB, no `size` in the manifest. All
  /// 300 small files are done; the two large ones are at 28 % each, their sizes learned from
  /// their responses. Two snapshots a second apart, 64 MiB apart, so a rate is known.
  static func smallFilesDoneLargeOnesAtAQuarter() -> ProgressState {
    var state = ProgressState(total: 302, manifestBytes: 0, entriesWithoutSize: 302)
    let small = 300 * 10 * kib
    let large = gib * 28 / 100
    for line in 1...300 {
      state.apply(.finished(outcome(line: line)))
    }
    let active = [
      Self.active(line: 301, path: "big/one.iso", bytes: large, size: gib),
      Self.active(line: 302, path: "big/two.iso", bytes: large, size: gib),
    ]
    for (time, back) in [(9.0, Int64(64 << 20)), (10.0, Int64(0))] {
      let done = small + 2 * (large - back / 2)
      state.apply(
        .progress(
          ProgressSnapshot(
            finished: 300, failed: 0, total: 302, bytes: done, expectedBytes: nil,
            active: active, elapsed: time, completedBytes: done, learnedBytes: small + 2 * gib,
            learnedEntries: 302)))
    }
    return state
  }

  static func outcome(line: Int, status: EntryOutcome.Status = .ok) -> EntryOutcome {
    EntryOutcome(
      line: line, text: "{}", url: "http://127.0.0.1/f\(line)", path: "small/f\(line)",
      operation: .download, status: status, bytes: 10 * kib, attempts: 1, seconds: 0.1,
      sha256: nil, error: nil)
  }
}
