/// A failure of the daemon's journal: what SQLite answered, with its result code and message,
/// or a rule of the journal that a call broke.
///
/// The journal is the daemon's memory across restarts, so a failed write means the change did
/// not happen (the transaction rolled back) and the daemon must not answer as if it had.
public struct JournalError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What kind of failure this is.
  public var kind: Kind
  /// SQLite's extended result code (`SQLITE_FULL`, `SQLITE_IOERR_FSYNC`, ...), or `0` when the
  /// failure is the journal's own rule, not SQLite's answer.
  public var sqliteCode: Int32
  /// What happened, for a person: SQLite's message and the statement or file it concerns.
  public var message: String

  package init(_ kind: Kind, sqliteCode: Int32 = 0, _ message: String) {
    self.kind = kind
    self.sqliteCode = sqliteCode
    self.message = message
  }

  public var description: String {
    sqliteCode == 0 ? "\(kind): \(message)" : "\(kind) (SQLite \(sqliteCode)): \(message)"
  }

  /// The kinds of journal failure. Only the kinds below exist.
  public struct Kind: Hashable, Sendable, CustomStringConvertible {
    private enum Base: String, Hashable, Sendable {
      case sqlite, constraint, eventOutOfOrder, notFound, closed, unreadable, newerSchema
    }

    private let base: Base
    private init(_ base: Base) { self.base = base }

    public var description: String { base.rawValue }

    /// SQLite failed: the file could not be opened, the disk is full, an I/O error, another
    /// process held the lock past the busy timeout, a damaged file. `sqliteCode` says which.
    public static let sqlite = Kind(.sqlite)
    /// A write broke a rule of the schema: a job id that is already there, a reserved meta
    /// key.
    public static let constraint = Kind(.constraint)
    /// An appended event's id is not larger than every id before it (also ids that were
    /// pruned or deleted: ids never go back).
    public static let eventOutOfOrder = Kind(.eventOutOfOrder)
    /// `updateJob` named a job the journal does not hold.
    public static let notFound = Kind(.notFound)
    /// The journal was used after `close()`.
    public static let closed = Kind(.closed)
    /// A stored value cannot be read back (a job state or entry status this build does not
    /// know).
    public static let unreadable = Kind(.unreadable)
    /// The file was written by a newer haul (its `user_version` is beyond this build's
    /// schema); it is left untouched.
    public static let newerSchema = Kind(.newerSchema)
  }
}
