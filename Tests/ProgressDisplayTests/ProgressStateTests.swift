import HaulCore
import Testing

@testable import haul

@Suite("Progress state: by bytes over the sizes known")
struct ProgressStateTests {
  typealias F = ProgressFixture

  @Test func sizes_learned_from_responses_make_the_fraction_by_bytes_not_by_files() throws {
    let state = F.smallFilesDoneLargeOnesAtAQuarter()
    #expect(state.unknownSizes == 0)
    #expect(state.expectedBytes == 300 * 10 * F.kib + 2 * F.gib)
    // By files this run would be at 99 %.
    #expect(Format.percent(state.fraction) == "28%")
    let left = try #require(state.estimatedSecondsLeft)
    // 1.44 GiB left at 64 MiB/s.
    #expect(abs(left - 23.04) < 0.1, "\(left)")
  }

  @Test func entries_whose_size_is_not_known_yet_are_counted_and_left_out_of_the_bytes() {
    var state = ProgressState(total: 10, manifestBytes: 4000, entriesWithoutSize: 6)
    state.apply(
      .progress(
        ProgressSnapshot(
          finished: 0, failed: 0, total: 10, bytes: 1500, expectedBytes: nil,
          active: [F.active(line: 5, path: "a", bytes: 1500, size: 6000)], elapsed: 1,
          completedBytes: 1500, learnedBytes: 6000, learnedEntries: 1)))
    #expect(state.expectedBytes == 10_000)
    #expect(state.unknownSizes == 5)
    #expect(state.fraction == 0.15)
  }

  @Test func a_listed_folder_grows_the_totals_by_what_its_listing_gave() {
    // Given a manifest of a sized file and a folder entry (no size)
    var state = ProgressState(total: 2, manifestBytes: 1000, entriesWithoutSize: 1)
    // When the folder's listing named three files so far, two with sizes
    var snapshot = ProgressSnapshot(
      finished: 0, failed: 0, total: 4, bytes: 0, expectedBytes: nil, active: [], elapsed: 1)
    snapshot.listedBytes = 3000
    snapshot.listedWithoutSize = 0
    state.apply(.progress(snapshot))
    // Then the files take the folder's place and their sizes join the bytes known; the
    // one listed without a size is the entry whose size is unknown, in the folder's place
    #expect(state.total == 4)
    #expect(state.expectedBytes == 4000)
    #expect(state.unknownSizes == 1)
  }

  @Test func with_no_byte_known_to_be_expected_the_fraction_is_by_files() {
    var state = ProgressState(total: 4, manifestBytes: 0, entriesWithoutSize: 4)
    state.apply(.finished(F.outcome(line: 1)))
    #expect(state.fraction == 0.25)
    #expect(state.estimatedSecondsLeft == nil)
  }

  @Test func a_run_whose_files_all_ended_is_complete_whatever_the_bytes() {
    var state = ProgressState(total: 2, manifestBytes: 5000, entriesWithoutSize: 0)
    state.apply(.finished(F.outcome(line: 1)))
    state.apply(.finished(F.outcome(line: 2, status: .failed)))
    #expect(state.fraction == 1)
    #expect(state.estimatedSecondsLeft == 0)
  }
}
