import HaulCore
import HaulTestSupport
import Testing

/// Whether another run may have finished files in the output directory: known alone until
/// another run joins, and never alone beside one that is already there.
@Suite("Other runs on one output directory")
struct OtherRunsTests {
  @Test func a_run_is_alone_until_another_joins_and_never_alone_beside_one() throws {
    let directory = try TemporaryDirectory(prefix: "haul-runs")
    defer { directory.remove() }
    // Given a run alone in its folder (each OutputDirectory holds its own lock, as a process)
    let first = try OutputDirectory(path: directory.path)
    #expect(!first.otherRuns.mayHaveWritten)
    #expect(!first.otherRuns.mayHaveWritten)
    do {
      // When a second run joins, it sees the first, and the first sees it
      let second = try OutputDirectory(path: directory.path)
      #expect(second.otherRuns.mayHaveWritten)
      #expect(first.otherRuns.mayHaveWritten)
    }
    // Then a run that joins after both let go is alone again
    let third = try OutputDirectory(path: directory.path)
    #expect(first.otherRuns.mayHaveWritten)
    _ = consume first
    #expect(!third.otherRuns.mayHaveWritten)
  }
}
