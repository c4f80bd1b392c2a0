import Foundation

/// Entry events of one job, committed together as one row of `entry_events`.
///
/// A run of small files has two entry events per file; a row for each made the event log
/// the journal's largest cost per file (written, then pruned). A batch is written and
/// pruned as one row, and read back only when a client replays the log. Its text holds one
/// event per line, `ID TAB TYPE TAB TIME TAB DATA`, readable with `sqlite3`.
struct EntryEventBatch: Equatable {
  var job: String?
  var events: [EventRecord]

  /// The event types kept in batches; the others (a job's) stay one row each, so that
  /// pruning can keep the `job-ended` event of every listed job.
  static func isBatched(_ event: EventRecord) -> Bool {
    // JSON text never holds a raw line break; a `data` that did would break the lines.
    event.type.hasPrefix("entry-")
      && !event.data.utf8.contains { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }
  }

  /// `events` as the rows they are written as, in order: each run of batched events of one
  /// job one batch, each other event a row of its own.
  static func rows(_ events: [EventRecord]) -> [Row] {
    var result: [Row] = []
    var open: EntryEventBatch?
    for event in events {
      let batched = isBatched(event)
      if let batch = open, !batched || batch.job != event.job {
        result.append(.batch(batch))
        open = nil
      }
      if batched {
        if open == nil { open = EntryEventBatch(job: event.job, events: []) }
        open!.events.append(event)
      } else {
        result.append(.event(event))
      }
    }
    if let open { result.append(.batch(open)) }
    return result
  }

  /// A row of the event log: one event, or a batch of entry events.
  enum Row: Equatable {
    case event(EventRecord)
    case batch(EntryEventBatch)
  }

  /// The batch's text column.
  var text: String {
    var text = ""
    for event in events {
      text += "\(event.id)\t\(event.type)\t\(event.time)\t\(event.data)\n"
    }
    return text
  }

  /// The events of a batch's text, `nil` when a line is not one this type wrote.
  static func events(job: String?, text: String) -> [EventRecord]? {
    var events: [EventRecord] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
      let fields = line.split(separator: "\t", maxSplits: 3, omittingEmptySubsequences: false)
      guard fields.count == 4, let id = Int64(fields[0]), let time = Double(fields[2]) else {
        return nil
      }
      events.append(
        EventRecord(id: id, type: String(fields[1]), job: job, data: String(fields[3]), time: time)
      )
    }
    return events
  }
}
