import Foundation

/// Entry events of one job, committed together as one row of `entry_events`.
///
/// A run of small files has two entry events per file; rather than a row for each (written,
/// then pruned), a batch is written and pruned as one row, and read back only when a client replays the log. Its text holds one
/// event per line, `ID TAB TYPE TAB TIME TAB DATA`, readable with `sqlite3`.
struct EntryEventBatch {
  var job: String?
  /// The ids of its first and last event.
  private(set) var first: Int64
  private(set) var last: Int64
  /// How many events it holds.
  private(set) var count = 0
  /// The text so far, built as bytes rather than by string interpolation per field.
  private var bytes: [UInt8] = []

  /// A batch holding `event`, which must be one `isBatched` takes.
  init(_ event: EventRecord) {
    job = event.job
    first = event.id
    last = event.id
    bytes.reserveCapacity(4096)
    append(event)
  }

  /// Adds `event`, of the batch's job, after the others.
  mutating func append(_ event: EventRecord) {
    last = event.id
    count += 1
    bytes.appendDecimal(event.id)
    bytes.append(UInt8(ascii: "\t"))
    bytes.appendUTF8(event.type)
    bytes.append(UInt8(ascii: "\t"))
    Self.appendTime(event.time, to: &bytes)
    bytes.append(UInt8(ascii: "\t"))
    bytes.appendUTF8(event.data)
    bytes.append(UInt8(ascii: "\n"))
  }

  /// The batch's text column.
  var text: String { String(decoding: bytes, as: UTF8.self) }

  /// The event types kept in batches; the others (a job's) stay one row each, so that
  /// pruning can keep the `job-ended` event of every listed job.
  static func isBatched(_ event: EventRecord) -> Bool {
    guard event.type.hasPrefix("entry-") else { return false }
    // JSON text never holds a raw line break; a `data` that did would break the lines.
    var data = event.data
    return data.withUTF8 { bytes in
      guard let base = bytes.baseAddress else { return true }
      return memchr(base, 0x0A, bytes.count) == nil && memchr(base, 0x0D, bytes.count) == nil
    }
  }

  /// Calls `single` or `batch` for each row `events` are written as, in order: each run
  /// of batched events of one job one batch, each other event a row of its own.
  static func forEachRow<Failure: Error>(
    _ events: [EventRecord], single: (EventRecord) throws(Failure) -> Void,
    batch: (EntryEventBatch) throws(Failure) -> Void
  ) throws(Failure) {
    var open: EntryEventBatch?
    for event in events {
      let batched = isBatched(event)
      if batched, open != nil, open!.job == event.job {
        open!.append(event)
        continue
      }
      if let closed = open {
        try batch(closed)
        open = nil
      }
      if batched {
        open = EntryEventBatch(event)
      } else {
        try single(event)
      }
    }
    if let open { try batch(open) }
  }

  /// Unix seconds `time` to the millisecond (`1765000000.123`), as `Double` reads it back.
  static func appendTime(_ time: Double, to bytes: inout [UInt8]) {
    guard time.isFinite, time >= 0, time < 1e15 else {
      bytes.append(contentsOf: "\(time.isFinite ? time : 0)".utf8)
      return
    }
    let millis = Int64((time * 1000).rounded())
    bytes.appendDecimal(millis / 1000)
    let fraction = Int(millis % 1000)
    bytes.append(UInt8(ascii: "."))
    bytes.append(UInt8(ascii: "0") + UInt8(fraction / 100))
    bytes.append(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
    bytes.append(UInt8(ascii: "0") + UInt8(fraction % 10))
  }

  /// The events of a batch's text after the event `after`, at most `limit` of them; `nil`
  /// when a line is not one this type wrote.
  ///
  /// Read as bytes, and a line's id first: a replay that pages through a batch of thousands
  /// of events makes records of the page's events only.
  static func events(
    job: String?, text: String, after: Int64 = .min, limit: Int = .max
  ) -> [EventRecord]? {
    var events: [EventRecord] = []
    var text = text
    let complete = text.withUTF8 { bytes -> Bool in
      var rest = UnsafeRawBufferPointer(bytes)
      while !rest.isEmpty, events.count < limit {
        let end = rest.firstIndex(of: UInt8(ascii: "\n")) ?? rest.endIndex
        let line = UnsafeRawBufferPointer(rebasing: rest[..<end])
        rest = UnsafeRawBufferPointer(rebasing: rest[min(end + 1, rest.endIndex)...])
        guard !line.isEmpty else { continue }
        guard let idEnd = line.firstIndex(of: UInt8(ascii: "\t")),
          let id = Int64(String(decoding: line[..<idEnd], as: UTF8.self))
        else { return false }
        let fields = line[(idEnd + 1)...].split(
          separator: UInt8(ascii: "\t"), maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3 else { return false }
        guard id > after else { continue }
        guard let time = Double(String(decoding: fields[1], as: UTF8.self)) else { return false }
        events.append(
          EventRecord(
            id: id, type: String(decoding: fields[0], as: UTF8.self), job: job,
            data: String(decoding: fields[2], as: UTF8.self), time: time))
      }
      return true
    }
    return complete ? events : nil
  }
}
