import Foundation
import Testing

@testable import HaulServe

/// Which of the daemon's events make which of aria2's notifications, as aria2c sends them.
@Suite struct Aria2NotifierTests {
  private var nextID: Int64 = 0

  private mutating func event(_ type: String, _ gid: String, state: String? = nil) -> EventRecord {
    nextID += 1
    let data = state.map { #"{"id":"\#(gid)","state":"\#($0)"}"# } ?? #"{"id":"\#(gid)"}"#
    return EventRecord(id: nextID, type: type, job: gid, data: data, time: 0)
  }

  private func names(_ events: [EventRecord], running: inout Set<String>) -> [String] {
    Aria2Notifier.notifications(for: events, running: &running).map { "\($0.method) \($0.gid)" }
  }

  @Test mutating func start_pause_start_complete_and_error() {
    var running: Set<String> = []
    let events = [
      event("job-added", "a"), event("job-started", "a"), event("entry-done", "a"),
      event("job-paused", "a", state: "paused"), event("job-resumed", "a"),
      event("job-started", "a"), event("job-ended", "a", state: "complete"),
      event("job-started", "b"), event("job-ended", "b", state: "error"),
    ]
    #expect(
      names(events, running: &running) == [
        "aria2.onDownloadStart a", "aria2.onDownloadPause a", "aria2.onDownloadStart a",
        "aria2.onDownloadComplete a", "aria2.onDownloadStart b", "aria2.onDownloadError b",
      ])
    #expect(running.isEmpty)
  }

  @Test mutating func stop_and_pause_only_for_a_download_that_runs() {
    var running: Set<String> = []
    let events = [
      // Added paused, then removed: aria2c says nothing.
      event("job-added", "w"), event("job-paused", "w", state: "paused"),
      event("job-ended", "w", state: "removed"),
      // Started, paused, removed while paused: only the pause.
      event("job-started", "p"), event("job-paused", "p", state: "paused"),
      event("job-ended", "p", state: "removed"),
      // Removed while running.
      event("job-started", "r"), event("job-ended", "r", state: "removed"),
    ]
    #expect(
      names(events, running: &running) == [
        "aria2.onDownloadStart p", "aria2.onDownloadPause p", "aria2.onDownloadStart r",
        "aria2.onDownloadStop r",
      ])
  }

  @Test func encodes_a_notification_as_aria2c_does() {
    let text = Aria2Notifier.encode(
      Aria2Notifier.Notification(method: "aria2.onDownloadStart", gid: "2089b05ecca3d829"))
    #expect(
      String(decoding: text, as: UTF8.self)
        == #"{"jsonrpc":"2.0","method":"aria2.onDownloadStart","params":[{"gid":"2089b05ecca3d829"}]}"#
    )
  }
}
