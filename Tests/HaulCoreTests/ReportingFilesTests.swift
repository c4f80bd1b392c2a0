import Foundation
import Testing

@testable import HaulCore

@Suite("Report and --failed files")
final class ReportingFilesTests {
  let directory: String

  deinit { try? FileManager.default.removeItem(atPath: directory) }

  init() throws {
    directory = NSTemporaryDirectory() + "haul-reporting-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  }

  @Test func report_assembles_summary_and_every_transfer() throws {
    let path = directory + "/report.json"
    let writer = try ReportWriter(path: path)
    for line in 1...1000 {
      var outcome = sampleOutcome
      outcome.line = line
      try writer.add(outcome)
    }
    let summary = RunSummary(
      total: 1000, succeeded: 0, skipped: 0, failed: 1000, bytes: 0, seconds: 1,
      transport: "curl", cancelled: false)
    try writer.finish(summary: summary)
    let object = try jsonObject(String(contentsOfFile: path, encoding: .utf8))
    let transfers = try #require(object["transfers"] as? [[String: Any]])
    #expect(transfers.count == 1000)
    #expect(transfers.map { $0["line"] as? Int } == (1...1000).map { $0 })
    #expect((object["summary"] as? [String: Any])?["failed"] as? Int == 1000)
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["report.json"])
  }

  @Test func report_with_no_transfers_is_valid() throws {
    let path = directory + "/empty.json"
    let writer = try ReportWriter(path: path)
    try writer.finish(
      summary: RunSummary(
        total: 0, succeeded: 0, skipped: 0, failed: 0, bytes: 0, seconds: 0, transport: "curl",
        cancelled: false))
    let object = try jsonObject(String(contentsOfFile: path, encoding: .utf8))
    #expect((object["transfers"] as? [Any])?.isEmpty == true)
  }

  @Test func report_in_a_missing_directory_fails_up_front() {
    #expect(throws: ReportFileError.self) {
      try ReportWriter(path: directory + "/no/such/report.json")
    }
  }

  @Test func failed_file_holds_failed_lines_verbatim_in_manifest_order() throws {
    let failed = FailedEntries(spoolDirectory: directory)
    for (line, status) in [(9, EntryOutcome.Status.failed), (2, .ok), (4, .failed), (1, .skipped)] {
      var outcome = sampleOutcome
      outcome.line = line
      outcome.text = "  {\"url\": \"https://example.com/\(line)\"}  "
      outcome.status = status
      failed.add(outcome)
    }
    let path = directory + "/failed.txt"
    try failed.write(to: path)
    #expect(
      try String(contentsOfFile: path, encoding: .utf8)
        == "  {\"url\": \"https://example.com/4\"}  \n  {\"url\": \"https://example.com/9\"}  \n")
  }

  @Test func failed_lines_past_the_memory_limit_go_to_a_spool_and_come_back_in_order() throws {
    let failed = FailedEntries(spoolDirectory: directory)
    let text = { (line: Int) in
      "{\"url\": \"https://example.com/\(line)\", \"pad\": \"\(line % 7)\"}"
    }
    let count = 3 * FailedEntries.memoryLimit / 40
    // Completion order is nearly manifest order: entries in flight overtake one another
    // (blocks of 64 finish in reverse), and a few long transfers finish last.
    let stragglers = [2, 500, 40_000]
    let blocks = stride(from: 1, through: count, by: 64).flatMap { start in
      (start..<min(start + 64, count + 1)).reversed().filter { !stragglers.contains($0) }
    }
    let order = blocks + stragglers
    for line in order { failed.add(line: line, text: text(line)) }
    #expect(failed.count == count)
    // The spool is unlinked at once: nothing is left in the folder but what the test made.
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: directory).allSatisfy {
        !$0.hasPrefix(".haul-failed")
      })
    let path = directory + "/failed.txt"
    try failed.write(to: path)
    let written = try String(contentsOfFile: path, encoding: .utf8)
    #expect(written == (1...count).map { text($0) + "\n" }.joined())
  }

  @Test func failed_file_is_written_empty_when_nothing_failed() throws {
    let path = directory + "/failed.txt"
    try "old content\n".write(toFile: path, atomically: false, encoding: .utf8)
    try FailedEntries().write(to: path)
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "")
  }
}
