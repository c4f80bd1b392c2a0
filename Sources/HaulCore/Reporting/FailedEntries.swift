#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The `--failed` file: the manifest lines of the failed entries, verbatim, in manifest order,
/// so that `haul run FILE` retries just those.
///
/// The lines arrive in completion order; their bytes go into one growing buffer with a
/// small index (line, start, end), sorted only when written. After a cancel every unfinished
/// entry of a million-line manifest lands here, so an entry costs no `String` of its own and
/// the file is written in 1 MiB pieces, not a system call per line.
public struct FailedEntries: Sendable {
  private struct Record: Sendable {
    var line: Int
    var start: Int
    var end: Int
  }
  private var bytes: [UInt8] = []
  private var records: [Record] = []

  public init() {}

  /// The number of failed entries recorded.
  public var count: Int { records.count }

  /// Records `outcome` if it failed.
  public mutating func add(_ outcome: EntryOutcome) {
    guard outcome.status == .failed else { return }
    add(line: outcome.line, text: outcome.text)
  }

  /// Records the manifest line `line` whose text is `text`.
  public mutating func add(line: Int, text: String) {
    let start = bytes.count
    bytes.append(contentsOf: text.utf8)
    records.append(Record(line: line, start: start, end: bytes.count))
  }

  /// The file's content: one line per failed entry, in manifest order; empty when none.
  public var text: String {
    var out: [UInt8] = []
    forEachPiece(limit: .max) { out.append(contentsOf: $0) }
    return String(decoding: out, as: UTF8.self)
  }

  /// Writes the file at `path` (always, empty when nothing failed), replacing it atomically.
  public func write(to path: String) throws(ReportFileError) {
    let file = try OutputFile(path: path)
    try forEachPiece(limit: 1 << 20) { (piece) throws(ReportFileError) in try file.write(piece) }
    try file.commit()
  }

  /// Hands the file's bytes to `body` in manifest order, in pieces of about `limit` bytes.
  private func forEachPiece<Failure: Error>(
    limit: Int, _ body: ([UInt8]) throws(Failure) -> Void
  ) throws(Failure) {
    var piece: [UInt8] = []
    piece.reserveCapacity(min(limit, bytes.count + records.count))
    for record in records.sorted(by: { $0.line < $1.line }) {
      piece.append(contentsOf: bytes[record.start..<record.end])
      piece.append(UInt8(ascii: "\n"))
      if piece.count >= limit {
        try body(piece)
        piece.removeAll(keepingCapacity: true)
      }
    }
    if !piece.isEmpty { try body(piece) }
  }

  /// Whether a file at `path` could be created: its directory exists and is writable.
  /// Checked before a run so that a typo does not surface only at its end.
  public static func canCreate(_ path: String) -> Bool {
    access(ReportWriter.directory(of: path), W_OK | X_OK) == 0
  }
}
