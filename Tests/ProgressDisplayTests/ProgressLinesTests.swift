import HaulCore
import Testing

@testable import haul

@Suite("Progress lines: sizes, percentages and unknown sizes, fitted to the width")
struct ProgressLinesTests {
  typealias F = ProgressFixture

  func frame(columns: Int) -> TerminalFrame {
    TerminalFrame(columns: columns, rows: 24, color: false)
  }

  /// A run with 180 sizes still unknown and one transfer of each kind in flight.
  func partlyKnown() -> ProgressState {
    var state = ProgressState(total: 302, manifestBytes: 0, entriesWithoutSize: 302)
    for line in 1...120 { state.apply(.finished(F.outcome(line: line))) }
    let active = [
      F.active(line: 301, path: "big/one.iso", bytes: 300 << 20, size: F.gib),
      F.active(line: 150, path: "small/chunked-answer.bin", bytes: 5000, size: nil),
    ]
    state.apply(
      .progress(
        ProgressSnapshot(
          finished: 120, failed: 0, total: 302, bytes: 0, expectedBytes: nil, active: active,
          elapsed: 3, completedBytes: (300 << 20) + 120 * 10 * F.kib + 5000,
          learnedBytes: F.gib + 120 * 10 * F.kib, learnedEntries: 122)))
    return state
  }

  @Test(arguments: [80, 120, 200])
  func every_line_fits_the_width(columns: Int) {
    for line in frame(columns: columns).lines(partlyKnown()) {
      #expect(TextWidth.columns(line) <= columns - 1, "\(line)")
    }
  }

  @Test func a_wide_terminal_says_how_many_sizes_are_unknown_beside_a_bar() {
    let overall = frame(columns: 200).lines(partlyKnown())[0]
    #expect(overall.contains("180 files of unknown size"), "\(overall)")
    #expect(overall.contains("█"), "\(overall)")
    #expect(overall.hasPrefix(" 29%"), "\(overall)")
  }

  @Test func a_narrow_terminal_still_says_it_in_fewer_words() {
    let overall = frame(columns: 80).lines(partlyKnown())[0]
    #expect(overall.contains("+ 180 unknown"), "\(overall)")
    #expect(overall.contains("1.00 GiB"), "\(overall)")
    #expect(overall.contains("█"), "\(overall)")
  }

  @Test func a_transfer_of_known_size_shows_its_percentage_and_total() {
    let lines = frame(columns: 120).lines(partlyKnown())
    let large = lines.first { $0.hasSuffix("big/one.iso") }
    #expect(large?.contains(" 29% ") == true, "\(lines)")
    #expect(large?.contains("300 MiB / 1.00 GiB") == true, "\(lines)")
    let unknown = lines.first { $0.hasSuffix("chunked-answer.bin") }
    #expect(unknown?.contains("%") == false, "\(lines)")
    #expect(unknown?.contains(" / ") == false, "\(lines)")
  }

  @Test func once_every_size_is_known_the_overall_line_says_no_more() {
    let overall = frame(columns: 80).lines(F.smallFilesDoneLargeOnesAtAQuarter())[0]
    #expect(!overall.contains("unknown"), "\(overall)")
    #expect(overall.hasPrefix(" 28% █"), "\(overall)")
    #expect(overall.contains("ETA 0:24"), "\(overall)")
  }

  @Test func the_plain_line_gives_bytes_over_the_sizes_known_and_the_unknown_count() {
    let line = PlainProgress.line(partlyKnown())
    #expect(
      line.hasPrefix(
        "haul: 29%, 120/302 files, 301 MiB of 1.00 GiB and 180 files of unknown size, "), "\(line)")
    #expect(line.hasSuffix(", 2 active"), "\(line)")
  }
}
