/// The writes of one transaction of the journal, lent to the closure of `Journal.write`:
/// everything done through it commits together when the closure returns, and none of it
/// when the closure throws.
///
/// It cannot be copied or kept (it is `~Copyable` and not `Sendable`), so no write can
/// happen outside its transaction. Its methods must not call back into the `Journal`, whose
/// lock the transaction holds.
public struct JournalWrite: ~Copyable {
  let database: SQLiteDatabase

  init(database: SQLiteDatabase) {
    self.database = database
  }

  // MARK: Jobs

  /// Adds a job. A job with the same id already there fails with `.constraint`.
  public func insertJob(_ job: JobRecord) throws(JournalError) {
    try database.withStatement(JournalSQL.insertJob) { (statement) throws(JournalError) in
      try JournalSQL.bind(job, to: statement)
      try statement.run()
    }
  }

  /// Replaces the row of the job `job.id` with `job`, every column. A job the journal does not
  /// hold fails with `.notFound`.
  public func updateJob(_ job: JobRecord) throws(JournalError) {
    try database.withStatement(JournalSQL.updateJob) { (statement) throws(JournalError) in
      try JournalSQL.bind(job, to: statement)
      try statement.run()
    }
    guard database.changes > 0 else {
      throw JournalError(.notFound, "no job \(job.id) to update")
    }
  }

  /// Forgets a job: its row, its entries' outcomes and its events. Answers whether the job
  /// was there. Event ids stay where they were: the next event is still numbered after them.
  @discardableResult
  public func deleteJob(_ id: String) throws(JournalError) -> Bool {
    for sql in [
      JournalSQL.deleteEntries, JournalSQL.deleteOutcomeBatches, JournalSQL.deleteJobEvents,
      JournalSQL.deleteJobEntryEvents,
    ] {
      try database.withStatement(sql) { (statement) throws(JournalError) in
        try statement.bind(id, at: 1)
        try statement.run()
      }
    }
    try database.withStatement(JournalSQL.deleteJob) { (statement) throws(JournalError) in
      try statement.bind(id, at: 1)
      try statement.run()
    }
    return database.changes > 0
  }

  // MARK: Entries

  /// Records outcomes of entries, replacing an entry's earlier outcome, except that a
  /// `skipped` outcome never replaces an `ok` one: a job run again after a pause or a crash
  /// finds the files it fetched complete, and its report still says they were fetched.
  ///
  /// They are written as one batch per job (`OutcomeBatch`) and take their place among the
  /// job's entries when those are next read; give a few thousand outcomes per call (and per
  /// transaction) rather than one.
  public func recordOutcomes(_ outcomes: [EntryRecord]) throws(JournalError) {
    for batch in OutcomeBatch.batches(outcomes) {
      try database.withStatement(JournalSQL.insertOutcomeBatch) {
        (statement) throws(JournalError) in
        try statement.bind(batch.job, at: 1)
        try statement.bind(batch.count, at: 2)
        try statement.bind(batch.text, at: 3)
        try statement.run()
      }
    }
  }

  /// Forgets every recorded outcome of the job (to run it again from the start). Answers how
  /// many there were.
  @discardableResult
  public func clearEntries(_ job: String) throws(JournalError) -> Int {
    try JournalSQL.moveOutcomeBatches(job: job, in: database)
    try database.withStatement(JournalSQL.deleteEntries) { (statement) throws(JournalError) in
      try statement.bind(job, at: 1)
      try statement.run()
    }
    return database.changes
  }

  // MARK: Events

  /// Appends events, in order. Each id must be larger than every id appended before, in this
  /// call or any earlier one, pruned or deleted since or not; otherwise the call fails with
  /// `.eventOutOfOrder` (and, as any failure, rolls the transaction back).
  public func appendEvents(_ events: [EventRecord]) throws(JournalError) {
    guard !events.isEmpty else { return }
    var last = try JournalSQL.lastEventID(in: database)
    for event in events {
      guard event.id > last else {
        throw JournalError(
          .eventOutOfOrder, "event id \(event.id) is not after the last one, \(last)")
      }
      last = event.id
    }
    try EntryEventBatch.forEachRow(
      events,
      single: { (event) throws(JournalError) in
        try database.withStatement(JournalSQL.insertEvent) { (statement) throws(JournalError) in
          try statement.bind(event.id, at: 1)
          try statement.bind(event.type, at: 2)
          try statement.bind(event.job, at: 3)
          try statement.bind(event.data, at: 4)
          try statement.bind(event.time, at: 5)
          try statement.run()
        }
      },
      batch: { (batch) throws(JournalError) in
        try database.withStatement(JournalSQL.insertBatch) { (statement) throws(JournalError) in
          try statement.bind(batch.first, at: 1)
          try statement.bind(batch.last, at: 2)
          try statement.bind(batch.count, at: 3)
          try statement.bind(batch.job, at: 4)
          try statement.bind(batch.text, at: 5)
          try statement.run()
        }
      })
    try JournalSQL.setMeta(JournalSQL.lastEventIDKey, String(last), in: database)
  }

  /// Deletes the events older than the newest `keeping`, except the `job-ended` event of a
  /// job still in `jobs` (a client that comes back must learn how each job it sees ended).
  /// Entry events go a batch at a time, so a few more than `keeping` may stay. Answers how
  /// many were deleted. `Journal.prunedEventID()` remembers the newest id pruned.
  @discardableResult
  public func pruneEvents(keeping: Int) throws(JournalError) -> Int {
    // Counting back from the newest row: once `keeping` events are counted, the next row
    // and everything older go. A batch is kept or deleted whole.
    let cutoff = try database.withStatement(JournalSQL.rowsNewestFirst) {
      (statement) throws(JournalError) -> Int64? in
      var held = 0
      while try statement.step() {
        if held >= keeping { return statement.int64(at: 2) }
        held += Int(statement.int64(at: 1))
      }
      return nil
    }
    guard let cutoff else { return 0 }
    let batched = try database.withStatement(JournalSQL.countPrunedBatches) {
      (statement) throws(JournalError) -> Int in
      try statement.bind(cutoff, at: 1)
      return try statement.step() ? Int(statement.int64(at: 0)) : 0
    }
    var deleted = batched
    for sql in [JournalSQL.pruneEvents, JournalSQL.pruneBatches] {
      try database.withStatement(sql) { (statement) throws(JournalError) in
        try statement.bind(cutoff, at: 1)
        try statement.run()
      }
      if sql == JournalSQL.pruneEvents { deleted += database.changes }
    }
    let pruned = try JournalSQL.meta(JournalSQL.prunedEventIDKey, in: database)
    if cutoff > pruned.flatMap({ Int64($0) }) ?? 0 {
      try JournalSQL.setMeta(JournalSQL.prunedEventIDKey, String(cutoff), in: database)
    }
    return deleted
  }

  // MARK: Meta

  /// Sets the value of `key`, or removes it for `nil`. Keys starting with `journal.` are the
  /// journal's own and fail with `.constraint`.
  public func setMeta(_ key: String, _ value: String?) throws(JournalError) {
    guard !key.hasPrefix(JournalSQL.reservedMetaPrefix) else {
      throw JournalError(.constraint, "meta key \(key) is reserved for the journal")
    }
    try JournalSQL.setMeta(key, value, in: database)
  }
}

/// A transaction belongs to the thread that holds the journal's lock.
@available(*, unavailable)
extension JournalWrite: Sendable {}
