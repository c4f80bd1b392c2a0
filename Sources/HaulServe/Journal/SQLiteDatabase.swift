internal import CSQLite

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One SQLite connection to the journal's file, in WAL mode, with its prepared statements
/// kept by SQL text so that a statement run a million times is compiled once.
///
/// Not thread-safe: the connection is opened with `SQLITE_OPEN_NOMUTEX`, and one thread at a
/// time uses it, which `Journal`'s mutex makes true.
final class SQLiteDatabase {
  /// How long a statement waits for another connection's lock before failing with
  /// `SQLITE_BUSY`: the daemon is the only writer, so only a reader such as the `sqlite3`
  /// shell or a checkpoint can hold it, and briefly.
  static let busyTimeoutMilliseconds: Int32 = 5_000
  /// The size the WAL file is cut back to after a checkpoint: a job's outcomes written in
  /// batches would otherwise leave it as large as the largest burst between checkpoints.
  static let walSizeLimit = 64 << 20
  /// Page cache, in KiB: holds the entries' index pages a job of a million entries touches.
  static let cacheKiB = 16 << 10

  /// The file's path, for error messages.
  let path: String
  private var handle: OpaquePointer?
  private var statements: [String: OpaquePointer] = [:]

  /// Opens `path`, creating it with mode 0600 (it holds URLs, which may carry credentials),
  /// and sets WAL mode. `fsync`: every commit reaches the disk before it returns
  /// (`synchronous=FULL`), so an accepted job survives a power cut; without it
  /// (`synchronous=NORMAL`) a commit survives a crash of the process but the last ones may
  /// be lost to a power cut.
  ///
  /// - SeeAlso: `sqlite3_open_v2`, `PRAGMA journal_mode`, `PRAGMA synchronous`.
  init(path: String, fsync: Bool) throws(JournalError) {
    self.path = path
    try createPrivately(path)
    var opened: OpaquePointer?
    let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
    let status = sqlite3_open_v2(path, &opened, flags, nil)
    guard status == SQLITE_OK, let opened else {
      let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
      sqlite3_close_v2(opened)
      throw JournalError(.sqlite, sqliteCode: status, "cannot open \(path): \(message)")
    }
    handle = opened
    sqlite3_extended_result_codes(opened, 1)
    sqlite3_busy_timeout(opened, Self.busyTimeoutMilliseconds)
    do throws(JournalError) {
      let mode = try pragma("journal_mode = WAL")
      guard mode == "wal" else {
        throw JournalError(.sqlite, "\(path) cannot use WAL mode (it stays in \(mode ?? "?") mode)")
      }
      try exec("PRAGMA synchronous = \(fsync ? "FULL" : "NORMAL")")
      try exec("PRAGMA journal_size_limit = \(Self.walSizeLimit)")
      try exec("PRAGMA cache_size = -\(Self.cacheKiB)")
    } catch {
      close()
      throw error
    }
  }

  /// Closes a connection nobody closed (a journal dropped without `close()`, a failed open).
  /// Safe here, unlike curl's cleanup: SQLite has no callback in flight to outlive it.
  deinit {
    close()
  }

  /// Finalizes every statement and closes the connection; SQLite checkpoints the WAL into
  /// the file and removes it. Closing a closed database does nothing.
  func close() {
    for statement in statements.values { sqlite3_finalize(statement) }
    statements.removeAll()
    if let handle { sqlite3_close_v2(handle) }
    handle = nil
  }

  /// Runs `sql`, one statement or several separated by `;`, discarding any rows.
  func exec(_ sql: String) throws(JournalError) {
    let status = sqlite3_exec(handle, sql, nil, nil, nil)
    guard status == SQLITE_OK else { throw failure(status, sql) }
  }

  /// Runs `PRAGMA <text>` and answers the first column of its first row, if any.
  func pragma(_ text: String) throws(JournalError) -> String? {
    try withStatement("PRAGMA \(text)") { (statement) throws(JournalError) -> String? in
      try statement.step() ? statement.optionalString(at: 0) : nil
    }
  }

  /// Runs `body` with the prepared statement of `sql`, compiling it on first use and keeping
  /// it. The statement is reset (its bindings kept) before and after `body`, so `body` binds
  /// and steps a fresh run. `body` must not ask for the same SQL again while it runs.
  func withStatement<T>(
    _ sql: String, _ body: (SQLiteStatement) throws(JournalError) -> T
  ) throws(JournalError) -> T {
    let statement = SQLiteStatement(handle: try prepared(sql))
    statement.reset()
    defer { statement.reset() }
    return try body(statement)
  }

  private func prepared(_ sql: String) throws(JournalError) -> OpaquePointer {
    if let statement = statements[sql] { return statement }
    guard let handle else { throw JournalError(.closed, "\(path) is closed") }
    var statement: OpaquePointer?
    let flags = UInt32(SQLITE_PREPARE_PERSISTENT)
    let status = sqlite3_prepare_v3(handle, sql, -1, flags, &statement, nil)
    guard status == SQLITE_OK, let statement else { throw failure(status, sql) }
    statements[sql] = statement
    return statement
  }

  /// Runs `body` in one transaction: `BEGIN IMMEDIATE` (the write lock is taken at once, so
  /// the commit cannot fail for a reader's sake), then `COMMIT`, or `ROLLBACK` when `body`
  /// or the commit throws.
  func transaction<T>(_ body: () throws(JournalError) -> T) throws(JournalError) -> T {
    try run("BEGIN IMMEDIATE")
    do throws(JournalError) {
      let result = try body()
      try run("COMMIT")
      return result
    } catch {
      // A failed COMMIT may have ended the transaction itself (SQLITE_FULL, SQLITE_IOERR).
      if sqlite3_get_autocommit(handle) == 0 { try? run("ROLLBACK") }
      throw error
    }
  }

  /// Steps a statement that answers no rows, such as `BEGIN` or a `DELETE`.
  private func run(_ sql: String) throws(JournalError) {
    try withStatement(sql) { (statement) throws(JournalError) in try statement.run() }
  }

  /// The number of rows the last `INSERT`, `UPDATE` or `DELETE` changed.
  var changes: Int { Int(sqlite3_changes(handle)) }

  /// The error SQLite reports for `status`, with its message and the statement concerned.
  private func failure(_ status: Int32, _ sql: String) -> JournalError {
    guard let handle else { return JournalError(.closed, "\(path) is closed") }
    return SQLiteStatement.error(handle, status, sql)
  }
}

/// Creates the file with mode 0600 unless it exists, so that SQLite never creates it with its
/// default 0644. SQLite gives the `-wal` and `-shm` files the mode of the database.
private func createPrivately(_ path: String) throws(JournalError) {
  let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
  if fd >= 0 {
    // The umask may have taken bits of 0600 away; the journal must be readable and writable.
    fchmod(fd, 0o600)
    close(fd)
  } else if errno != EEXIST {
    let reason = String(cString: strerror(errno))
    throw JournalError(.sqlite, sqliteCode: SQLITE_CANTOPEN, "cannot create \(path): \(reason)")
  }
}

/// The connection belongs to whoever holds the journal's lock; it never crosses threads
/// on its own.
@available(*, unavailable)
extension SQLiteDatabase: Sendable {}
