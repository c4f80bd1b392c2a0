import Synchronization

/// The daemon's memory across restarts: its jobs, the outcome of each of their entries, the
/// event log that reconnecting clients replay, and a few settings, in one SQLite file in WAL
/// mode.
///
/// Threading: every call is synchronous and takes one lock around the one connection, so
/// calls from any thread run one at a time. No call may be made from inside a `write`
/// closure, which holds the lock (it is not recursive); `forEachEntry`'s closure runs outside
/// it. A call blocks for as long as SQLite does: a commit with `fsync` waits for the disk, so
/// an async caller runs it where blocking a thread is acceptable.
///
/// Writes go through `write(_:)`, one transaction per call. Reads see every committed write.
///
/// - SeeAlso: sqlite.org/wal.html, sqlite.org/atomiccommit.html.
public final class Journal: Sendable {
  /// The file's path.
  public let path: String
  /// The connection, `nil` once closed.
  private let connection: Mutex<Connection>

  /// The connection as the mutex holds it.
  // @unchecked: used only inside `connection.withLock`, so by one thread at a time.
  private struct Connection: @unchecked Sendable {
    var database: SQLiteDatabase?
  }

  /// Opens the journal at `path`, creating it (mode 0600) with its tables when missing and
  /// bringing an older file's tables up to date.
  ///
  /// - Parameter fsync: every commit reaches the disk before it returns (`synchronous=FULL`),
  ///   so what the daemon answered survives a power cut. Without it (`synchronous=NORMAL`), a
  ///   commit survives the daemon's crash but the last ones may be lost to a power cut.
  public init(path: String, fsync: Bool) throws(JournalError) {
    let database = try SQLiteDatabase(path: path, fsync: fsync)
    try JournalSchema.migrate(database)
    self.path = path
    connection = Mutex(Connection(database: database))
  }

  /// Closes the file: SQLite writes the WAL back into it and removes it. Every later call
  /// fails with `.closed`; closing again does nothing.
  public func close() {
    connection.withLock { connection in
      connection.database?.close()
      connection.database = nil
    }
  }

  /// Runs `body` in one transaction (`BEGIN IMMEDIATE` … `COMMIT`) and answers its result:
  /// everything `body` writes commits together, or, when `body` or the commit throws,
  /// nothing does.
  ///
  /// Keep `body` short and free of other I/O: the journal is locked while it runs.
  @discardableResult
  public func write<T>(
    _ body: (inout JournalWrite) throws(JournalError) -> T
  ) throws(JournalError) -> T {
    try withDatabase { (database) throws(JournalError) -> T in
      try database.transaction { () throws(JournalError) -> T in
        var transaction = JournalWrite(database: database)
        return try body(&transaction)
      }
    }
  }

  /// Deletes the events older than the newest `keeping`, except the `job-ended` event of a
  /// job still listed, in a transaction of its own; answers how many were deleted.
  ///
  /// - SeeAlso: `JournalWrite.pruneEvents(keeping:)`, to prune within another write.
  @discardableResult
  public func pruneEvents(keeping: Int) throws(JournalError) -> Int {
    try write { (transaction) throws(JournalError) -> Int in
      try transaction.pruneEvents(keeping: keeping)
    }
  }

  /// Runs `body` with the connection, under the lock.
  func withDatabase<T>(
    _ body: (SQLiteDatabase) throws(JournalError) -> T
  ) throws(JournalError) -> T {
    try connection.withLock { (connection) throws(JournalError) -> T in
      guard let database = connection.database else {
        throw JournalError(.closed, "the journal \(path) is closed")
      }
      return try body(database)
    }
  }
}
