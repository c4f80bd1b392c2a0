import Testing

@testable import HaulServe

@Suite("EntryEventBatch: entry events as one row of text")
struct EntryEventBatchTests {
  private func event(_ id: Int64, _ type: String, job: String? = "j1", time: Double = 1)
    -> EventRecord
  {
    EventRecord(id: id, type: type, job: job, data: "{\"line\":\(id)}", time: time)
  }

  @Test func runs_of_one_jobs_entry_events_become_one_batch_and_the_rest_single_rows() {
    let events = [
      event(1, "job-started"), event(2, "entry-started"), event(3, "entry-done"),
      event(4, "entry-started", job: "j2"), event(5, "job-ended"), event(6, "entry-failed"),
      EventRecord(id: 7, type: "entry-done", job: "j1", data: "{\"a\":\"x\ny\"}", time: 1),
    ]
    var rows: [String] = []
    EntryEventBatch.forEachRow(
      events, single: { rows.append("event \($0.id)") },
      batch: { rows.append("batch \($0.first)-\($0.last) of \($0.count)") })
    #expect(
      rows == [
        "event 1", "batch 2-3 of 2", "batch 4-4 of 1", "event 5", "batch 6-6 of 1", "event 7",
      ])
  }

  @Test func text_reads_back_as_the_same_events_with_times_to_the_millisecond() throws {
    var batch = EntryEventBatch(event(10, "entry-started", time: 1_765_123_200.1234))
    batch.append(event(11, "entry-done", time: 1_765_123_200.9996))
    batch.append(event(12, "entry-done", time: 0.05))
    #expect(
      batch.text
        == "10\tentry-started\t1765123200.123\t{\"line\":10}\n"
        + "11\tentry-done\t1765123201.000\t{\"line\":11}\n"
        + "12\tentry-done\t0.050\t{\"line\":12}\n")
    let read = try #require(EntryEventBatch.events(job: "j1", text: batch.text))
    #expect(read.map(\.id) == [10, 11, 12])
    #expect(read.map(\.time) == [1_765_123_200.123, 1_765_123_201, 0.05])
    #expect(read.map(\.data) == ["{\"line\":10}", "{\"line\":11}", "{\"line\":12}"])
  }

  @Test func a_page_of_a_batch_is_the_events_after_an_id_up_to_a_limit() throws {
    var batch = EntryEventBatch(event(20, "entry-started"))
    for id in Int64(21)...29 { batch.append(event(id, "entry-done")) }
    let page = try #require(
      EntryEventBatch.events(job: "j1", text: batch.text, after: 23, limit: 4))
    #expect(page.map(\.id) == [24, 25, 26, 27])
    #expect(page.map(\.type) == ["entry-done", "entry-done", "entry-done", "entry-done"])
    #expect(page.allSatisfy { $0.job == "j1" && $0.data == "{\"line\":\($0.id)}" })
    #expect(EntryEventBatch.events(job: "j1", text: batch.text, after: 29)?.isEmpty == true)
    // A line this type did not write makes the batch unreadable.
    #expect(EntryEventBatch.events(job: "j1", text: "1\tentry-done\t1.000\n") == nil)
    #expect(EntryEventBatch.events(job: "j1", text: "x\tentry-done\t1.000\t{}\n") == nil)
  }
}
