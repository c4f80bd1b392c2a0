#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The `--failed` file: the manifest lines of the failed entries, verbatim, in manifest order,
/// so that `haul run FILE` retries just those.
///
/// The lines arrive in completion order. Their bytes are gathered in memory and, past 1 MiB,
/// moved to an anonymous spool file (created in `spoolDirectory` and unlinked at once), so a
/// million failures (every entry, after a cancel) cost 24 bytes each in memory, not their
/// text. `write(to:)` sorts the small index by line and copies the lines out of the spool
/// in 1 MiB pieces. When the spool cannot be created or written, the lines simply
/// stay in memory: nothing is lost.
///
/// Not thread-safe: one owner at a time (the CLI's event consumer, under its lock).
// unchecked: one owner at a time, the CLI's event consumer under the run's event lock.
public final class FailedEntries: @unchecked Sendable {
  private struct Record {
    var line: Int
    /// Where the line's bytes start: in the spool below `spooled`, else in `pending`.
    var offset: Int
    var length: Int
  }
  private var records: [Record] = []
  private var pending: [UInt8] = []
  private let spoolDirectory: String
  private var spool: Int32 = -1
  /// Bytes in the spool file.
  private var spooled = 0
  /// Set when the spool failed; from then on every line stays in `pending`.
  private var spoolFailed = false
  /// The most bytes kept in memory before they move to the spool.
  static let memoryLimit = 1 << 20

  /// `spoolDirectory`: where lines past the memory limit go (the `--failed` file's own
  /// directory, whose file system is about to receive them anyway).
  public init(spoolDirectory: String = ".") {
    self.spoolDirectory = spoolDirectory
  }

  /// Spools beside the `--failed` file at `path`, in its directory.
  public convenience init(spoolingBeside path: String) {
    self.init(spoolDirectory: ReportWriter.directory(of: path))
  }

  deinit {
    if spool >= 0 { close(spool) }
  }

  /// The number of failed entries recorded.
  public var count: Int { records.count }

  /// Records `outcome` if it failed.
  public func add(_ outcome: EntryOutcome) {
    guard outcome.status == .failed else { return }
    add(line: outcome.line, text: outcome.text)
  }

  /// Records the manifest line `line` whose text is `text`.
  public func add(line: Int, text: String) {
    let offset = spooled + pending.count
    pending.append(contentsOf: text.utf8)
    records.append(Record(line: line, offset: offset, length: pending.count + spooled - offset))
    if pending.count >= Self.memoryLimit && !spoolFailed { spill() }
  }

  /// Moves `pending` to the end of the spool.
  private func spill() {
    if spool < 0 {
      spool = SpoolFile.create(in: spoolDirectory, name: "failed")
      guard spool >= 0 else {
        spoolFailed = true
        return
      }
    }
    guard pending.withUnsafeBytes({ writeAll(spool, $0) }) else {
      // The spool may now end in part of `pending`; `spooled` still marks what is valid.
      spoolFailed = true
      return
    }
    spooled += pending.count
    pending.removeAll(keepingCapacity: true)
  }

  /// Writes the file at `path` (always, empty when nothing failed), replacing it atomically.
  public func write(to path: String) throws(ReportFileError) {
    let file = try OutputFile(path: path)
    var window = SpoolWindow(spool: spool)
    var piece: [UInt8] = []
    piece.reserveCapacity(Self.memoryLimit + 4096)
    for record in records.sorted(by: { $0.line < $1.line }) {
      if record.offset < spooled {
        guard window.append(record.offset, record.length, to: &piece) else {
          throw .fromErrno(path)
        }
      } else {
        let start = record.offset - spooled
        piece.append(contentsOf: pending[start..<start + record.length])
      }
      piece.append(UInt8(ascii: "\n"))
      if piece.count >= Self.memoryLimit {
        try file.write(piece)
        piece.removeAll(keepingCapacity: true)
      }
    }
    if !piece.isEmpty { try file.write(piece) }
    try file.commit()
  }

  /// Reads the spool back 64 KiB at a time: lines finish nearly in manifest order (at most
  /// the entries in flight overtake one another), so the sorted lines mostly come from the
  /// window already read, a line that finished late costs one extra read, and memory stays
  /// at one window.
  private struct SpoolWindow {
    let spool: Int32
    var bytes: [UInt8] = []
    var start = 0

    /// Appends the spool's bytes `offset..<offset + length` to `out`; `false` on a read error.
    mutating func append(_ offset: Int, _ length: Int, to out: inout [UInt8]) -> Bool {
      if offset < start || offset + length > start + bytes.count {
        guard load(from: offset, atLeast: length) else { return false }
      }
      out.append(contentsOf: bytes[(offset - start)..<(offset - start + length)])
      return true
    }

    private mutating func load(from offset: Int, atLeast length: Int) -> Bool {
      let size = max(64 << 10, length)
      bytes = [UInt8](repeating: 0, count: size)
      start = offset
      var got = 0
      while got < size {
        let count = bytes.withUnsafeMutableBytes {
          pread(spool, $0.baseAddress! + got, size - got, off_t(offset + got))
        }
        if count < 0 && errno == EINTR { continue }
        if count < 0 { return false }
        if count == 0 { break }
        got += count
      }
      bytes.removeSubrange(got...)
      return got >= length
    }
  }

  /// Whether a file at `path` could be created: its directory exists and is writable.
  /// Checked before a run so that a typo does not surface only at its end.
  public static func canCreate(_ path: String) -> Bool {
    access(ReportWriter.directory(of: path), W_OK | X_OK) == 0
  }
}
