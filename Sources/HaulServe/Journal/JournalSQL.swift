/// The journal's statements, and how a row of each table becomes a record. Every statement
/// is prepared once per connection (`SQLiteDatabase.withStatement`).
enum JournalSQL {
  /// Meta keys the journal keeps for itself; `JournalWrite.setMeta` refuses them.
  static let reservedMetaPrefix = "journal."
  /// The largest event id ever appended, so that ids never go back when events are pruned
  /// or deleted with their job.
  static let lastEventIDKey = "journal.last_event_id"
  /// The largest event id `pruneEvents` deleted up to.
  static let prunedEventIDKey = "journal.pruned_event_id"

  // MARK: Jobs

  static let jobColumns = """
    id, position, state, output, options, manifest, name, total, expected_bytes, succeeded, \
    skipped, failed, bytes, created, started, ended
    """
  static let insertJob = """
    INSERT INTO jobs (\(jobColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, \
    ?13, ?14, ?15, ?16)
    """
  static let updateJob = """
    UPDATE jobs SET position = ?2, state = ?3, output = ?4, options = ?5, manifest = ?6, \
    name = ?7, total = ?8, expected_bytes = ?9, succeeded = ?10, skipped = ?11, failed = ?12, \
    bytes = ?13, created = ?14, started = ?15, ended = ?16 WHERE id = ?1
    """
  static let selectJobs = "SELECT \(jobColumns) FROM jobs ORDER BY position, created, id"
  static let selectJob = "SELECT \(jobColumns) FROM jobs WHERE id = ?1"
  static let deleteJob = "DELETE FROM jobs WHERE id = ?1"

  /// Binds `job` to `insertJob` or `updateJob`, whose parameters are numbered alike.
  static func bind(_ job: JobRecord, to statement: SQLiteStatement) throws(JournalError) {
    try statement.bind(job.id, at: 1)
    try statement.bind(job.position, at: 2)
    try statement.bind(job.state.rawValue, at: 3)
    try statement.bind(job.output, at: 4)
    try statement.bind(job.options, at: 5)
    try statement.bind(job.manifest, at: 6)
    try statement.bind(job.name, at: 7)
    try statement.bind(job.total, at: 8)
    try statement.bind(job.expectedBytes, at: 9)
    try statement.bind(job.succeeded, at: 10)
    try statement.bind(job.skipped, at: 11)
    try statement.bind(job.failed, at: 12)
    try statement.bind(job.bytes, at: 13)
    try statement.bind(job.created, at: 14)
    try statement.bind(job.started, at: 15)
    try statement.bind(job.ended, at: 16)
  }

  /// The job on the statement's current row of `jobColumns`.
  static func job(_ row: SQLiteStatement) throws(JournalError) -> JobRecord {
    let id = row.string(at: 0)
    let stateText = row.string(at: 2)
    guard let state = JobState(rawValue: stateText) else {
      throw JournalError(.unreadable, "job \(id) has an unknown state \"\(stateText)\"")
    }
    return JobRecord(
      id: id, position: row.double(at: 1), state: state, output: row.string(at: 3),
      options: row.string(at: 4), manifest: row.string(at: 5), name: row.string(at: 6),
      total: Int(row.int64(at: 7)), expectedBytes: row.optionalInt64(at: 8),
      succeeded: Int(row.int64(at: 9)), skipped: Int(row.int64(at: 10)),
      failed: Int(row.int64(at: 11)), bytes: row.int64(at: 12), created: row.double(at: 13),
      started: row.optionalDouble(at: 14), ended: row.optionalDouble(at: 15))
  }

  // MARK: Entries

  static let entryColumns = "job, line, path, url, status, code, bytes, report"
  /// Records an outcome, replacing the entry's earlier one (an entry is a line and a path:
  /// a folder's line names every file its listing gave), except that `skipped` never
  /// replaces `ok`: a job run again after a pause or a crash finds the files it fetched
  /// complete on disk, and its report must still say they were fetched.
  static let upsertEntry = """
    INSERT INTO entries (\(entryColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
    ON CONFLICT (job, line, path) DO UPDATE SET url = excluded.url,
      status = excluded.status, code = excluded.code, bytes = excluded.bytes,
      report = excluded.report
    WHERE NOT (entries.status = 'ok' AND excluded.status = 'skipped')
    """
  /// A page of the job's outcomes from `?3` on (`status`: only those of that status).
  static func selectEntriesPage(_ status: EntryRecord.Status?) -> String {
    """
    SELECT \(entryColumns) FROM entries WHERE job = ?1\(statusClause(status)) \
    ORDER BY line, path LIMIT ?2 OFFSET ?3
    """
  }
  /// The job's outcomes after line `?3`, path `?5` (`status`: only those of that status).
  static func selectEntriesAfter(_ status: EntryRecord.Status?) -> String {
    """
    SELECT \(entryColumns) FROM entries WHERE job = ?1\(statusClause(status)) \
    AND (line, path) > (?3, ?5) ORDER BY line, path LIMIT ?2
    """
  }
  /// Failures are named in the text, so SQLite can use `entries_failed`, the one index by
  /// status: a job's failures are what clients page through, and an index of every entry
  /// by status cost a third of the time of recording an outcome.
  private static func statusClause(_ status: EntryRecord.Status?) -> String {
    switch status {
    case nil: ""
    case .failed: " AND status = 'failed'"
    case .some: " AND status = ?4"
    }
  }
  static let countEntries = """
    SELECT status, count(*), sum(bytes) FROM entries WHERE job = ?1 GROUP BY status
    """
  static let deleteEntries = "DELETE FROM entries WHERE job = ?1"
  static let hasEntries = """
    SELECT 1 WHERE EXISTS (SELECT 1 FROM entries WHERE job = ?1) \
    OR EXISTS (SELECT 1 FROM outcome_batches WHERE job = ?1)
    """

  // MARK: Outcome batches

  static let insertOutcomeBatch = """
    INSERT INTO outcome_batches (job, count, outcomes) VALUES (?1, ?2, ?3)
    """
  static let selectOutcomeBatches = """
    SELECT id, outcomes FROM outcome_batches WHERE job = ?1 ORDER BY id
    """
  static let deleteOutcomeBatches = "DELETE FROM outcome_batches WHERE job = ?1"

  /// Moves the job's outcome batches into `entries`, oldest first, each outcome by the rule
  /// of `upsertEntry`, in one transaction: what every read of a job's entries does first.
  /// A job without batches costs one lookup of the index.
  static func fold(job: String, in database: SQLiteDatabase) throws(JournalError) {
    let pending = try database.withStatement(selectOutcomeBatches) {
      (statement) throws(JournalError) -> Bool in
      try statement.bind(job, at: 1)
      return try statement.step()
    }
    guard pending else { return }
    try database.transaction { () throws(JournalError) in
      try moveOutcomeBatches(job: job, in: database)
    }
  }

  /// `fold`'s work, inside a transaction the caller holds.
  static func moveOutcomeBatches(job: String, in database: SQLiteDatabase) throws(JournalError) {
    // A batch at a time as SQLite steps to it: a fold's memory is one batch's, however many
    // wait.
    let moved = try database.withStatement(selectOutcomeBatches) {
      (statement) throws(JournalError) -> Bool in
      try statement.bind(job, at: 1)
      var moved = false
      while try statement.step() {
        let id = statement.int64(at: 0)
        guard let outcomes = OutcomeBatch.outcomes(job: job, text: statement.string(at: 1)) else {
          throw JournalError(.unreadable, "the outcome batch \(id) of job \(job) cannot be read")
        }
        try upsert(outcomes, in: database)
        moved = true
      }
      return moved
    }
    guard moved else { return }
    try database.withStatement(deleteOutcomeBatches) { (statement) throws(JournalError) in
      try statement.bind(job, at: 1)
      try statement.run()
    }
  }

  /// Records each of `outcomes` in `entries` by the rule of `upsertEntry`.
  static func upsert(_ outcomes: [EntryRecord], in database: SQLiteDatabase)
    throws(JournalError)
  {
    try database.withStatement(upsertEntry) { (statement) throws(JournalError) in
      for outcome in outcomes {
        try statement.bind(outcome.job, at: 1)
        try statement.bind(outcome.line, at: 2)
        try statement.bind(outcome.path, at: 3)
        try statement.bind(outcome.url, at: 4)
        try statement.bind(outcome.status.rawValue, at: 5)
        try statement.bind(outcome.code, at: 6)
        try statement.bind(outcome.bytes, at: 7)
        try statement.bind(outcome.report, at: 8)
        try statement.run()
        statement.reset()
      }
    }
  }

  /// The entry on the statement's current row of `entryColumns`.
  static func entry(_ row: SQLiteStatement) throws(JournalError) -> EntryRecord {
    let statusText = row.string(at: 4)
    guard let status = EntryRecord.Status(rawValue: statusText) else {
      throw JournalError(
        .unreadable,
        "entry \(row.int64(at: 1)) of job \(row.string(at: 0)) has an unknown status "
          + "\"\(statusText)\"")
    }
    return EntryRecord(
      job: row.string(at: 0), line: Int(row.int64(at: 1)), path: row.string(at: 2),
      url: row.string(at: 3), status: status, code: row.optionalString(at: 5),
      bytes: row.int64(at: 6), report: row.string(at: 7))
  }

  // MARK: Events

  static let eventColumns = "id, type, job, data, time"
  static let insertEvent = "INSERT INTO events (\(eventColumns)) VALUES (?1, ?2, ?3, ?4, ?5)"
  static let selectEventsAfter = """
    SELECT \(eventColumns) FROM events WHERE id > ?1 ORDER BY id LIMIT ?2
    """
  // Two-argument min and max answer NULL when either is: each side stands in for the other.
  static let oldestEventID = """
    SELECT min(coalesce(a, b), coalesce(b, a)) FROM \
    (SELECT (SELECT min(id) FROM events) AS a, (SELECT min(first) FROM entry_events) AS b)
    """
  static let newestEventID = """
    SELECT max(coalesce(a, b), coalesce(b, a)) FROM \
    (SELECT (SELECT max(id) FROM events) AS a, (SELECT max(last) FROM entry_events) AS b)
    """
  static let deleteJobEvents = "DELETE FROM events WHERE job = ?1"
  static let deleteJobEntryEvents = "DELETE FROM entry_events WHERE job = ?1"
  static let batchColumns = "first, last, count, job, events"
  static let insertBatch = """
    INSERT INTO entry_events (\(batchColumns)) VALUES (?1, ?2, ?3, ?4, ?5)
    """
  /// The batches holding an event after `?1`, oldest first, at most `?2`.
  static let selectBatchesAfter = """
    SELECT \(batchColumns) FROM entry_events WHERE last > ?1 ORDER BY first LIMIT ?2
    """
  /// The rows of the log, newest first: each one's first id, how many events it holds and
  /// its last id; what pruning counts back from.
  static let rowsNewestFirst = """
    SELECT id, 1, id FROM events UNION ALL SELECT first, count, last FROM entry_events \
    ORDER BY 1 DESC
    """
  /// The events batches `pruneEvents` deletes up to `?1` hold.
  static let countPrunedBatches = "SELECT sum(count) FROM entry_events WHERE last <= ?1"
  static let pruneBatches = "DELETE FROM entry_events WHERE last <= ?1"
  /// Deletes events up to `?1`, but never the `job-ended` event of a job still listed: a
  /// client that comes back learns how every job it can see ended.
  static let pruneEvents = """
    DELETE FROM events WHERE id <= ?1
      AND NOT (type = 'job-ended' AND job IS NOT NULL AND job IN (SELECT id FROM jobs))
    """

  /// The event on the statement's current row of `eventColumns`.
  static func event(_ row: SQLiteStatement) -> EventRecord {
    EventRecord(
      id: row.int64(at: 0), type: row.string(at: 1), job: row.optionalString(at: 2),
      data: row.string(at: 3), time: row.double(at: 4))
  }

  // MARK: Meta

  static let selectMeta = "SELECT value FROM meta WHERE key = ?1"
  static let upsertMeta = """
    INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = ?2
    """
  static let deleteMeta = "DELETE FROM meta WHERE key = ?1"

  // MARK: Reads shared by `Journal` and `JournalWrite`

  /// The meta value of `key`.
  static func meta(_ key: String, in database: SQLiteDatabase) throws(JournalError) -> String? {
    try database.withStatement(selectMeta) { (statement) throws(JournalError) -> String? in
      try statement.bind(key, at: 1)
      return try statement.step() ? statement.string(at: 0) : nil
    }
  }

  /// Sets (or, for `nil`, removes) the meta value of `key`.
  static func setMeta(_ key: String, _ value: String?, in database: SQLiteDatabase)
    throws(JournalError)
  {
    try database.withStatement(value == nil ? deleteMeta : upsertMeta) {
      (statement) throws(JournalError) in
      try statement.bind(key, at: 1)
      if let value { try statement.bind(value, at: 2) }
      try statement.run()
    }
  }

  /// The one integer a statement such as `SELECT max(id)` answers, `nil` for NULL or no row.
  static func integer(_ sql: String, in database: SQLiteDatabase) throws(JournalError) -> Int64? {
    try database.withStatement(sql) { (statement) throws(JournalError) -> Int64? in
      try statement.step() ? statement.optionalInt64(at: 0) : nil
    }
  }

  /// The largest event id ever appended (0 when none): the larger of the recorded
  /// high-water mark and the largest id held.
  static func lastEventID(in database: SQLiteDatabase) throws(JournalError) -> Int64 {
    let recorded = try meta(lastEventIDKey, in: database).flatMap { Int64($0) } ?? 0
    return max(recorded, try integer(newestEventID, in: database) ?? 0)
  }
}
