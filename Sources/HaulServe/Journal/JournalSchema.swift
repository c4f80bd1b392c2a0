/// The journal's tables, and the steps that bring a file written by an older haul up to
/// this build's schema, counted by SQLite's `user_version`.
enum JournalSchema {
  /// `migrations[n]` brings a file at version `n` to version `n + 1`; a new file (version 0)
  /// runs them all. A later change appends a step and never edits one that shipped.
  static let migrations: [String] = [
    """
    CREATE TABLE jobs (
      id TEXT PRIMARY KEY NOT NULL,
      position REAL NOT NULL,
      state TEXT NOT NULL,
      output TEXT NOT NULL,
      options TEXT NOT NULL,
      manifest TEXT NOT NULL,
      name TEXT NOT NULL,
      total INTEGER NOT NULL,
      expected_bytes INTEGER,
      succeeded INTEGER NOT NULL,
      skipped INTEGER NOT NULL,
      failed INTEGER NOT NULL,
      bytes INTEGER NOT NULL,
      created REAL NOT NULL,
      started REAL,
      ended REAL
    );
    CREATE INDEX jobs_by_position ON jobs (position);
    CREATE TABLE entries (
      job TEXT NOT NULL,
      line INTEGER NOT NULL,
      path TEXT NOT NULL,
      url TEXT NOT NULL,
      status TEXT NOT NULL,
      code TEXT,
      bytes INTEGER NOT NULL,
      report TEXT NOT NULL,
      PRIMARY KEY (job, line, path)
    ) WITHOUT ROWID;
    CREATE INDEX entries_by_status ON entries (job, status, line, path);
    CREATE TABLE events (
      id INTEGER PRIMARY KEY,
      type TEXT NOT NULL,
      job TEXT,
      data TEXT NOT NULL,
      time REAL NOT NULL
    );
    CREATE INDEX events_by_job ON events (job) WHERE job IS NOT NULL;
    CREATE TABLE meta (
      key TEXT PRIMARY KEY NOT NULL,
      value TEXT NOT NULL
    ) WITHOUT ROWID;
    """,
    // Only failures are looked up by status; the counts at a run's end read the entries.
    // Events are found by job only when a job is forgotten, in a log pruned to a bounded
    // size: a scan then costs less than an index written with every event. Entry events
    // are written in batches (`EntryEventBatch`), a row per job and commit.
    """
    DROP INDEX entries_by_status;
    DROP INDEX events_by_job;
    CREATE INDEX entries_failed ON entries (job, line, path) WHERE status = 'failed';
    CREATE TABLE entry_events (
      first INTEGER PRIMARY KEY,
      last INTEGER NOT NULL,
      count INTEGER NOT NULL,
      job TEXT,
      events TEXT NOT NULL
    );
    """,
    // Outcomes are written in batches (`OutcomeBatch`), a row per job and commit, and
    // moved into `entries` when the job's entries are first read.
    """
    CREATE TABLE outcome_batches (
      id INTEGER PRIMARY KEY,
      job TEXT NOT NULL,
      count INTEGER NOT NULL,
      outcomes TEXT NOT NULL
    );
    CREATE INDEX outcome_batches_by_job ON outcome_batches (job);
    """,
  ]

  /// The schema version this build writes.
  static var version: Int { migrations.count }

  /// Brings the file up to `version`, each step in its own transaction with the version it
  /// reaches, so that a crash midway leaves the file at a whole version. A file of a newer
  /// haul is refused and left as it is.
  static func migrate(_ database: SQLiteDatabase) throws(JournalError) {
    while true {
      let done = try database.transaction { () throws(JournalError) -> Bool in
        // Read inside the write lock: another process may have migrated meanwhile.
        let current = Int(try database.pragma("user_version") ?? "0") ?? 0
        guard current <= version else {
          throw JournalError(
            .newerSchema,
            "\(database.path) has schema version \(current); this haul knows up to \(version)")
        }
        guard current < version else { return true }
        try database.exec(migrations[current])
        try database.exec("PRAGMA user_version = \(current + 1)")
        return false
      }
      if done { return }
    }
  }
}
