import Foundation
import HaulCore
import Testing

@Suite("Events JSON Lines: types, fields, sampling")
struct ReportingEventsTests {
  let entry = EntryInfo(line: 3, path: "x/y.bin", operation: .download, expectedBytes: 100)

  @Test func every_event_has_a_type_line_and_path() throws {
    var lines = EventLines()
    var outcome = sampleOutcome
    outcome.line = 3
    outcome.path = "x/y.bin"
    let events: [TransferEvent] = [
      .started(entry),
      .progress(snapshot(bytes: 10, elapsed: 0.25)),
      .retry(entry, attempt: 2, code: .http(503), delay: 1.5),
      .finished(outcome),
    ]
    let texts = events.flatMap { lines.lines(for: $0) }
    let objects = try texts.map(jsonObject)
    #expect(objects.map { $0["type"] as? String } == ["start", "progress", "retry", "failed"])
    for object in objects {
      #expect(object["line"] as? Int == 3)
      #expect(object["path"] as? String == "x/y.bin")
    }
    #expect(objects[1]["bytes"] as? Int == 10)
    #expect(objects[1]["size"] as? Int == 100)
    #expect(objects[2]["attempt"] as? Int == 2)
    #expect(objects[2]["code"] as? String == "http_503")
    #expect(objects[2]["delay"] as? Double == 1.5)
    #expect((objects[3]["error"] as? [String: Any])?["code"] as? String == "http_503")
    #expect(texts.allSatisfy { !$0.contains("\n") && !$0.contains("secret") })
  }

  @Test func finished_events_are_named_done_skipped_failed() throws {
    var lines = EventLines()
    for (status, type) in [
      (EntryOutcome.Status.ok, "done"), (.skipped, "skipped"), (.failed, "failed"),
    ] {
      var outcome = sampleOutcome
      outcome.status = status
      let object = try jsonObject(try #require(lines.lines(for: .finished(outcome)).first))
      #expect(object["type"] as? String == type)
    }
  }

  @Test func progress_lines_are_sampled_per_entry() {
    var lines = EventLines(progressInterval: 0.5)
    _ = lines.lines(for: .started(entry))
    var emitted = 0
    for step in 1...40 {
      emitted +=
        lines.lines(for: .progress(snapshot(bytes: Int64(step), elapsed: Double(step) * 0.1))).count
    }
    // 4 seconds of samples every 0.1 s: at most 2 lines a second.
    #expect(emitted >= 7 && emitted <= 9)
  }

  @Test func progress_without_movement_is_not_repeated() {
    var lines = EventLines(progressInterval: 0.5)
    _ = lines.lines(for: .started(entry))
    var emitted = 0
    for step in 1...40 {
      emitted += lines.lines(for: .progress(snapshot(bytes: 5, elapsed: Double(step) * 0.1))).count
    }
    #expect(emitted == 1)
  }

  /// A snapshot is taken apart from the events: it may list an entry before its `start` is
  /// out or after its `done` is.
  @Test func progress_comes_only_between_an_entrys_start_and_its_end() {
    var lines = EventLines(progressInterval: 0)
    #expect(lines.lines(for: .progress(snapshot(bytes: 1, elapsed: 0.1))).isEmpty)
    _ = lines.lines(for: .started(entry))
    #expect(lines.lines(for: .progress(snapshot(bytes: 2, elapsed: 0.2))).count == 1)
    var outcome = sampleOutcome
    outcome.line = entry.line
    _ = lines.lines(for: .finished(outcome))
    #expect(lines.lines(for: .progress(snapshot(bytes: 3, elapsed: 0.3))).isEmpty)
  }

  @Test func summary_event_is_the_summary_with_a_type() throws {
    var lines = EventLines()
    let summary = RunSummary(
      total: 2, succeeded: 1, skipped: 0, failed: 1, bytes: 5, seconds: 0.5,
      transport: "urlsession",
      cancelled: true)
    let object = try jsonObject(try #require(lines.lines(for: .summary(summary)).first))
    #expect(object["type"] as? String == "summary")
    #expect(object["transport"] as? String == "urlsession")
    #expect(object["cancelled"] as? Bool == true)
    #expect(object["total"] as? Int == 2)
  }

  private func snapshot(bytes: Int64, elapsed: Double) -> ProgressSnapshot {
    ProgressSnapshot(
      finished: 0, failed: 0, total: 1, bytes: bytes, expectedBytes: 100,
      active: [.init(entry: entry, bytes: bytes)], elapsed: elapsed)
  }
}
