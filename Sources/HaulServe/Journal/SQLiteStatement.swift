internal import CSQLite

/// A prepared statement of a `SQLiteDatabase`, lent for one run: bind its parameters
/// (numbered from 1), step through its rows, read their columns (numbered from 0).
///
/// The database owns and finalizes the statement; this value is only a view of it, valid
/// inside `SQLiteDatabase.withStatement`.
struct SQLiteStatement {
  let handle: OpaquePointer

  /// Rewinds the statement so that it runs again; its bindings stay.
  func reset() {
    sqlite3_reset(handle)
  }

  // MARK: Binding

  /// Binds an integer, or NULL for `nil`.
  func bind(_ value: Int64?, at index: Int32) throws(JournalError) {
    guard let value else { return try bindNull(at: index) }
    try check(sqlite3_bind_int64(handle, index, value))
  }

  /// Binds an integer, or NULL for `nil`.
  func bind(_ value: Int?, at index: Int32) throws(JournalError) {
    try bind(value.map { Int64($0) }, at: index)
  }

  /// Binds a floating-point number, or NULL for `nil`.
  func bind(_ value: Double?, at index: Int32) throws(JournalError) {
    guard let value else { return try bindNull(at: index) }
    try check(sqlite3_bind_double(handle, index, value))
  }

  /// Binds UTF-8 text (SQLite copies it), or NULL for `nil`.
  func bind(_ value: String?, at index: Int32) throws(JournalError) {
    guard var value else { return try bindNull(at: index) }
    let status = value.withUTF8 { bytes in
      // An empty buffer may have no address, which SQLite would take for NULL.
      guard let base = bytes.baseAddress else {
        return sqlite3_bind_text(handle, index, "", 0, nil)
      }
      let text = UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self)
      return sqlite3_bind_text(handle, index, text, Int32(bytes.count), haul_sqlite_transient())
    }
    try check(status)
  }

  /// Binds bytes as a blob (SQLite copies them), or NULL for `nil`.
  func bind(blob value: [UInt8]?, at index: Int32) throws(JournalError) {
    guard let value else { return try bindNull(at: index) }
    let status = value.withUnsafeBytes { bytes in
      guard let base = bytes.baseAddress else { return sqlite3_bind_zeroblob(handle, index, 0) }
      return sqlite3_bind_blob(handle, index, base, Int32(bytes.count), haul_sqlite_transient())
    }
    try check(status)
  }

  /// Binds NULL.
  func bindNull(at index: Int32) throws(JournalError) {
    try check(sqlite3_bind_null(handle, index))
  }

  // MARK: Running

  /// Advances to the next row: `true` when there is one to read, `false` when the statement
  /// has finished.
  func step() throws(JournalError) -> Bool {
    switch sqlite3_step(handle) {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    case let status: throw failure(status)
    }
  }

  /// Runs a statement that answers no rows (an `INSERT`, a `DELETE`) to its end.
  func run() throws(JournalError) {
    while try step() {}
  }

  // MARK: Reading the current row

  /// Whether the column is NULL.
  func isNull(at index: Int32) -> Bool {
    sqlite3_column_type(handle, index) == SQLITE_NULL
  }

  /// The column as an integer (0 for NULL).
  func int64(at index: Int32) -> Int64 {
    sqlite3_column_int64(handle, index)
  }

  /// The column as an integer, `nil` for NULL.
  func optionalInt64(at index: Int32) -> Int64? {
    isNull(at: index) ? nil : int64(at: index)
  }

  /// The column as a floating-point number (0 for NULL).
  func double(at index: Int32) -> Double {
    sqlite3_column_double(handle, index)
  }

  /// The column as a floating-point number, `nil` for NULL.
  func optionalDouble(at index: Int32) -> Double? {
    isNull(at: index) ? nil : double(at: index)
  }

  /// The column as UTF-8 text ("" for NULL).
  func string(at index: Int32) -> String {
    guard let text = sqlite3_column_text(handle, index) else { return "" }
    let count = Int(sqlite3_column_bytes(handle, index))
    return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
  }

  /// The column as UTF-8 text, `nil` for NULL.
  func optionalString(at index: Int32) -> String? {
    isNull(at: index) ? nil : string(at: index)
  }

  /// The column as bytes (empty for NULL).
  func blob(at index: Int32) -> [UInt8] {
    guard let bytes = sqlite3_column_blob(handle, index) else { return [] }
    let count = Int(sqlite3_column_bytes(handle, index))
    return [UInt8](UnsafeRawBufferPointer(start: bytes, count: count))
  }

  // MARK: Errors

  private func check(_ status: Int32) throws(JournalError) {
    guard status == SQLITE_OK else { throw failure(status) }
  }

  private func failure(_ status: Int32) -> JournalError {
    let sql = sqlite3_sql(handle).map { String(cString: $0) } ?? "?"
    return Self.error(sqlite3_db_handle(handle), status, sql)
  }

  /// The error of a failed call on the connection `database`: SQLite's extended code and
  /// message, and the statement concerned. A constraint failure is its own kind, so that the
  /// daemon can tell a duplicate job id from a failing disk.
  static func error(_ database: OpaquePointer?, _ status: Int32, _ sql: String) -> JournalError {
    let code = database.map { sqlite3_extended_errcode($0) } ?? status
    let message = database.map { String(cString: sqlite3_errmsg($0)) } ?? "error \(status)"
    let kind: JournalError.Kind = code & 0xff == SQLITE_CONSTRAINT ? .constraint : .sqlite
    return JournalError(kind, sqliteCode: code, "\(message) (in: \(sql))")
  }
}

/// A statement belongs to its connection's thread, as the connection does.
@available(*, unavailable)
extension SQLiteStatement: Sendable {}
