import Testing

@testable import HaulServe

@Suite("OutcomeBatch: a commit's outcomes as one row of text")
struct OutcomeBatchTests {
  @Test func outcomes_read_back_whole_also_with_tabs_line_breaks_and_backslashes() throws {
    let outcomes = [
      EntryRecord(
        job: "j1", line: 3, path: "a/b.bin", url: "http://127.0.0.1/b.bin", status: .ok,
        bytes: 16_384, report: "{\"line\":3,\"status\":\"ok\"}"),
      EntryRecord(
        job: "j1", line: 7, path: "odd\tname\\with\nbreaks\r.txt", url: "http://h/x?q=a\\b",
        status: .failed, code: "http_404", bytes: 0, report: "{\"message\":\"a\\\\b\"}"),
      EntryRecord(
        job: "j1", line: 9, path: "", url: "http://h/", status: .skipped, bytes: 0, report: "{}"),
    ]
    let batches = OutcomeBatch.batches(outcomes)
    #expect(batches.count == 1 && batches[0].count == 3)
    // One line per outcome: nothing of a field leaks into the line structure.
    #expect(batches[0].text.split(separator: "\n").count == 3)
    #expect(OutcomeBatch.outcomes(job: "j1", text: batches[0].text) == outcomes)
  }

  @Test func outcomes_of_several_jobs_make_one_batch_each_in_order() {
    let records = ["a", "b", "a", "c", "b"].enumerated().map { index, job in
      EntryRecord(
        job: job, line: index, path: "p\(index)", url: "http://h/\(index)", status: .ok,
        bytes: 1, report: "{}")
    }
    let batches = OutcomeBatch.batches(records)
    #expect(batches.map(\.job) == ["a", "b", "c"])
    #expect(batches.map(\.count) == [2, 2, 1])
    #expect(OutcomeBatch.outcomes(job: "a", text: batches[0].text)?.map(\.line) == [0, 2])
  }

  @Test func a_line_this_type_did_not_write_is_refused() {
    #expect(OutcomeBatch.outcomes(job: "j", text: "1\tok\t5\t\tp\tu\n") == nil)
    #expect(OutcomeBatch.outcomes(job: "j", text: "1\tmaybe\t5\t\tp\tu\t{}\n") == nil)
    #expect(OutcomeBatch.outcomes(job: "j", text: "1\tok\t5\t\tp\\x\tu\t{}\n") == nil)
  }
}
