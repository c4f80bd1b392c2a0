/// The journal's reads. Each runs under the journal's lock, outside any write, and sees every
/// committed write.
extension Journal {
  /// How many entries `forEachEntry` reads under the lock at a time.
  static let entryPage = 1_000

  /// What `entryCounts(job:)` answers.
  private typealias Counts = (ok: Int, skipped: Int, failed: Int, bytes: Int64)

  // MARK: Jobs

  /// Every job, in queue order (by `position`, then by `created`).
  public func jobs() throws(JournalError) -> [JobRecord] {
    try withDatabase { (database) throws(JournalError) -> [JobRecord] in
      try database.withStatement(JournalSQL.selectJobs) {
        (statement) throws(JournalError) -> [JobRecord] in
        var jobs: [JobRecord] = []
        while try statement.step() { jobs.append(try JournalSQL.job(statement)) }
        return jobs
      }
    }
  }

  /// The job `id`, if the journal holds it.
  public func job(_ id: String) throws(JournalError) -> JobRecord? {
    try withDatabase { (database) throws(JournalError) -> JobRecord? in
      try database.withStatement(JournalSQL.selectJob) {
        (statement) throws(JournalError) -> JobRecord? in
        try statement.bind(id, at: 1)
        return try statement.step() ? try JournalSQL.job(statement) : nil
      }
    }
  }

  // MARK: Entries

  /// A page of the job's recorded outcomes, in line order: skipping `offset` of them, at most
  /// `limit`, only those of `status` when given.
  ///
  /// SQLite steps over the skipped ones, so a page deep into a million entries costs a walk
  /// of the index up to it.
  public func entries(
    job: String, status: EntryRecord.Status? = nil, offset: Int = 0, limit: Int
  ) throws(JournalError) -> [EntryRecord] {
    return try selectEntries(
      JournalSQL.selectEntriesPage(status), job: job, status: status, limit: limit
    ) {
      (statement) throws(JournalError) in
      try statement.bind(max(0, offset), at: 3)
    }
  }

  /// Calls `body` with each of the job's recorded outcomes (only those of `status` when
  /// given) in line order, until it answers `false`, without loading them all: a report of a
  /// million entries holds `entryPage` of them at a time.
  ///
  /// `body` runs outside the journal's lock, so it may write to a slow client, and it may
  /// call the journal. The journal is read a page at a time, so writes made meanwhile show
  /// from the next page on: an outcome recorded for a line not yet reached is seen, one for a
  /// line already passed is not.
  public func forEachEntry(
    job: String, status: EntryRecord.Status? = nil, _ body: (EntryRecord) -> Bool
  ) throws(JournalError) {
    let sql = JournalSQL.selectEntriesAfter(status)
    var after = (line: Int64.min, path: "")
    while true {
      let page = try selectEntries(sql, job: job, status: status, limit: Self.entryPage) {
        (statement) throws(JournalError) in
        try statement.bind(after.line, at: 3)
        try statement.bind(after.path, at: 5)
      }
      for entry in page {
        guard body(entry) else { return }
      }
      guard page.count == Self.entryPage, let last = page.last else { return }
      after = (Int64(last.line), last.path)
    }
  }

  /// Whether any outcome of the job is recorded.
  public func hasEntries(job: String) throws(JournalError) -> Bool {
    try withDatabase { (database) throws(JournalError) -> Bool in
      try database.withStatement(JournalSQL.hasEntries) { (statement) throws(JournalError) in
        try statement.bind(job, at: 1)
        return try statement.step()
      }
    }
  }

  /// The job's recorded outcomes counted by status, and the sum of their `bytes` whatever
  /// their status: what the job's counters are after a crash that lost the last update of
  /// its row.
  public func entryCounts(
    job: String
  ) throws(JournalError) -> (ok: Int, skipped: Int, failed: Int, bytes: Int64) {
    try withDatabase { (database) throws(JournalError) -> Counts in
      try JournalSQL.fold(job: job, in: database)
      return try database.withStatement(JournalSQL.countEntries) {
        (statement) throws(JournalError) in
        try statement.bind(job, at: 1)
        var counts: Counts = (0, 0, 0, 0)
        while try statement.step() {
          let count = Int(statement.int64(at: 1))
          switch EntryRecord.Status(rawValue: statement.string(at: 0)) {
          case .ok: counts.ok = count
          case .skipped: counts.skipped = count
          case .failed: counts.failed = count
          case nil:
            throw JournalError(
              .unreadable, "job \(job) has entries of an unknown status \(statement.string(at: 0))")
          }
          counts.bytes += statement.int64(at: 2)
        }
        return counts
      }
    }
  }

  /// Runs an entries query whose parameters are `?1` the job, `?2` the limit, `?4` the
  /// status, and `?3` what `bindRest` binds.
  private func selectEntries(
    _ sql: String, job: String, status: EntryRecord.Status?, limit: Int,
    bindRest: (SQLiteStatement) throws(JournalError) -> Void
  ) throws(JournalError) -> [EntryRecord] {
    try withDatabase { (database) throws(JournalError) -> [EntryRecord] in
      try JournalSQL.fold(job: job, in: database)
      return try database.withStatement(sql) { (statement) throws(JournalError) -> [EntryRecord] in
        try statement.bind(job, at: 1)
        try statement.bind(max(0, limit), at: 2)
        try bindRest(statement)
        if let status, status != .failed { try statement.bind(status.rawValue, at: 4) }
        var entries: [EntryRecord] = []
        while try statement.step() { entries.append(try JournalSQL.entry(statement)) }
        return entries
      }
    }
  }

  // MARK: Events

  /// The events after `id`, oldest first, at most `limit`: the job events' rows and the
  /// entry events' batches, merged by id.
  public func events(after id: Int64, limit: Int) throws(JournalError) -> [EventRecord] {
    let limit = max(0, limit)
    return try withDatabase { (database) throws(JournalError) -> [EventRecord] in
      let rows = try database.withStatement(JournalSQL.selectEventsAfter) {
        (statement) throws(JournalError) -> [EventRecord] in
        try statement.bind(id, at: 1)
        try statement.bind(limit, at: 2)
        var events: [EventRecord] = []
        while try statement.step() { events.append(JournalSQL.event(statement)) }
        return events
      }
      // Each batch holds at least one event after `id`, so `limit` batches hold enough.
      let batched = try database.withStatement(JournalSQL.selectBatchesAfter) {
        (statement) throws(JournalError) -> [EventRecord] in
        try statement.bind(id, at: 1)
        try statement.bind(limit, at: 2)
        var events: [EventRecord] = []
        while events.count < limit, try statement.step() {
          let first = statement.int64(at: 0)
          guard
            let batch = EntryEventBatch.events(
              job: statement.optionalString(at: 3), text: statement.string(at: 4), after: id,
              limit: limit - events.count)
          else {
            throw JournalError(.unreadable, "the entry events from \(first) cannot be read")
          }
          events += batch
        }
        return events
      }
      return Self.merged(rows, batched, limit: limit)
    }
  }

  /// The first `limit` events of two lists each in id order, in id order.
  private static func merged(_ a: [EventRecord], _ b: [EventRecord], limit: Int)
    -> [EventRecord]
  {
    var result: [EventRecord] = []
    result.reserveCapacity(min(limit, a.count + b.count))
    var i = a.startIndex
    var j = b.startIndex
    while result.count < limit, i < a.endIndex || j < b.endIndex {
      if j == b.endIndex || (i < a.endIndex && a[i].id < b[j].id) {
        result.append(a[i])
        i += 1
      } else {
        result.append(b[j])
        j += 1
      }
    }
    return result
  }

  /// The id of the oldest event held, `nil` when none is. A kept `job-ended` event may be
  /// older than events pruned after it: `prunedEventID()` says up to where events are gone.
  public func oldestEventID() throws(JournalError) -> Int64? {
    try withDatabase { (database) throws(JournalError) -> Int64? in
      try JournalSQL.integer(JournalSQL.oldestEventID, in: database)
    }
  }

  /// The largest event id ever appended, 0 when none was: also after the events were pruned
  /// or deleted with their jobs, so the daemon numbers its next event after it.
  public func lastEventID() throws(JournalError) -> Int64 {
    try withDatabase { (database) throws(JournalError) -> Int64 in
      try JournalSQL.lastEventID(in: database)
    }
  }

  /// The newest event id that pruning deleted up to, 0 when nothing was pruned: a client that
  /// last read an id before it has missed events (all but the kept `job-ended` ones) and gets
  /// a `gap` first.
  public func prunedEventID() throws(JournalError) -> Int64 {
    try withDatabase { (database) throws(JournalError) -> Int64 in
      try JournalSQL.meta(JournalSQL.prunedEventIDKey, in: database).flatMap { Int64($0) } ?? 0
    }
  }

  // MARK: Meta

  /// The value stored for `key` (`JournalWrite.setMeta`), if any.
  public func meta(_ key: String) throws(JournalError) -> String? {
    try withDatabase { (database) throws(JournalError) -> String? in
      try JournalSQL.meta(key, in: database)
    }
  }
}
