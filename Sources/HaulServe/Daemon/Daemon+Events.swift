import Foundation
import HaulCore

/// A client following `GET /v1/events`.
struct EventSubscriber: Sendable {
  var id: Int
  var stream: HTTPStream
  /// Leaves out `entry-started` and `entry-done` (`?entries=failed`).
  var failuresOnly: Bool
}

extension Daemon {
  /// Queues an event for the next commit; it gets the next id.
  func enqueueEvent(_ type: String, job: String?, data: [String: Any]) {
    enqueueEvent(type, job: job, json: JSONText.encode(data))
  }

  /// Queues an event whose data is the JSON text `json`.
  func enqueueEvent(_ type: String, job: String?, json: String) {
    let time = Daemon.now
    pending.withLock { pending in
      pending.events.append(
        EventRecord(id: pending.nextEventID, type: type, job: job, data: json, time: time))
      pending.nextEventID += 1
    }
  }

  /// Commits the pending outcomes and events with `jobs`' rows in one transaction, then
  /// sends the events to every subscriber. Called under the lock, so commits and
  /// publications keep the events' order.
  func flush(_ core: inout Core, jobs changed: [String] = [], inserted: String? = nil) {
    var outcomes: [EntryRecord] = []
    var events: [EventRecord] = []
    pending.withLock { pending in
      swap(&outcomes, &pending.outcomes)
      swap(&events, &pending.events)
    }
    guard !outcomes.isEmpty || !events.isEmpty || !changed.isEmpty || inserted != nil else {
      return
    }
    let records = changed.compactMap { core.jobs[$0] }
    let insert = inserted.flatMap { core.jobs[$0] }
    let prune = core.eventsSincePrune + events.count > configuration.eventsKept / 10
    do throws(JournalError) {
      try journal.write { (write: inout JournalWrite) throws(JournalError) in
        if let insert { try write.insertJob(insert) }
        for record in records { try write.updateJob(record) }
        if !outcomes.isEmpty { try write.recordOutcomes(outcomes) }
        if !events.isEmpty { try write.appendEvents(events) }
      }
      configuration.afterCommit?()
      if prune {
        try journal.pruneEvents(keeping: configuration.eventsKept)
        core.eventsSincePrune = 0
      } else {
        core.eventsSincePrune += events.count
      }
    } catch {
      // The journal cannot be written (a full disk): the events are still sent, and the
      // outcomes stay in the files themselves; the next run of the job finds them there.
      Self.log("journal write failed: \(error)")
    }
    if !events.isEmpty {
      for observer in core.observers { observer(events) }
    }
    guard !events.isEmpty, !core.subscribers.isEmpty else { return }
    var all: [UInt8] = []
    var failures: [UInt8] = []
    // `haul wait` follows failures only: the text of every event is made only when a
    // subscriber reads them all.
    let wantAll = core.subscribers.contains { !$0.failuresOnly }
    let wantFailures = core.subscribers.contains(where: \.failuresOnly)
    if wantAll { all.reserveCapacity(events.count * 160) }
    for event in events {
      if wantAll { Self.appendSSE(event, to: &all) }
      if wantFailures, !Self.isEntryProgress(event.type) {
        Self.appendSSE(event, to: &failures)
      }
    }
    core.subscribers.removeAll { subscriber in
      let bytes = subscriber.failuresOnly ? failures : all
      return !bytes.isEmpty && !subscriber.stream.write(bytes)
    }
  }

  /// The events `?entries=failed` leaves out: an entry started, or ended well.
  static func isEntryProgress(_ type: String) -> Bool {
    type == "entry-started" || type == "entry-done"
  }

  /// Sends the running jobs' `progress` events: samples, without an id, never journaled.
  func publishProgress(_ core: inout Core) {
    guard !core.subscribers.isEmpty else { return }
    var bytes: [UInt8] = []
    for (id, live) in core.live.sorted(by: { $0.key < $1.key }) {
      guard let snapshot = live.snapshot else { continue }
      var data: [String: Any] = [
        "job": id, "done": snapshot.finished, "failed": snapshot.failed,
        "total": snapshot.total, "bytes": live.bytesBefore + snapshot.bytes, "rate": live.rate,
      ]
      if let eta = live.eta { data["eta"] = eta }
      bytes += Array("event: progress\ndata: \(JSONText.encode(data))\n\n".utf8)
    }
    if !bytes.isEmpty { send(bytes, in: &core) }
  }

  /// Writes `bytes` to every subscriber; one that has fallen too far behind is cut off (it
  /// reconnects with the last id it read) and one that went away is dropped.
  private func send(_ bytes: [UInt8], in core: inout Core) {
    core.subscribers.removeAll { subscriber in
      !subscriber.stream.write(bytes)
    }
  }

  /// Calls `observer` with each batch of events once it is committed, in the events' order,
  /// for as long as the daemon runs (aria2's WebSocket notifications are made this way). It
  /// is called under the daemon's lock: it must neither block nor call the daemon.
  public func observeEvents(_ observer: @escaping @Sendable ([EventRecord]) -> Void) {
    core.withLock { $0.observers.append(observer) }
  }

  /// Starts following the events for `stream`: every event after `lastID` the journal still
  /// holds (first a `gap` when some are gone), then each new one as it is committed.
  public func subscribe(after lastID: Int64?, stream: HTTPStream, failuresOnly: Bool = false) {
    core.withLock { core in
      flush(&core)
      var bytes = Array(": haul events\n\n".utf8)
      if let lastID {
        do throws(JournalError) {
          // Pruning (not a forgotten job's holes) is what loses events a client missed.
          let pruned = try journal.prunedEventID()
          if lastID < pruned {
            let oldest = try journal.oldestEventID() ?? pruned + 1
            let gap = JSONText.encode(["after": lastID, "oldest": oldest])
            bytes += Array("event: gap\ndata: \(gap)\n\n".utf8)
          }
          var after = lastID
          while true {
            let page = try journal.events(after: after, limit: 1000)
            for event in page where !(failuresOnly && Self.isEntryProgress(event.type)) {
              Self.appendSSE(event, to: &bytes)
            }
            guard let last = page.last, page.count == 1000 else { break }
            after = last.id
          }
        } catch {
          Self.log("cannot replay events: \(error)")
        }
      }
      guard stream.write(bytes) else { return }
      let number = (core.subscribers.map(\.id).max() ?? 0) + 1
      core.subscribers.append(
        EventSubscriber(id: number, stream: stream, failuresOnly: failuresOnly))
    }
  }

  /// One event as Server-Sent Events lines.
  static func appendSSE(_ event: EventRecord, to bytes: inout [UInt8]) {
    // Field by field into the bytes, without an interpolated string per event.
    bytes.appendUTF8("id: ")
    bytes.appendDecimal(event.id)
    bytes.appendUTF8("\nevent: ")
    bytes.appendUTF8(event.type)
    bytes.appendUTF8("\ndata: ")
    bytes.appendUTF8(event.data)
    bytes.appendUTF8("\n\n")
  }

  /// A line on standard error, which systemd's journal keeps; never a secret.
  static func log(_ line: String) {
    FileHandle.standardError.write(Data(("haul serve: " + line + "\n").utf8))
  }
}
