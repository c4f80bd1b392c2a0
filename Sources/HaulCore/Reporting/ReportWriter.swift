#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes the `--report` file (docs/manual.md, "Report") without holding the transfers
/// in memory.
///
/// Each finished entry's object is appended to an anonymous spool file (created in the
/// report's directory and unlinked at once, so a crash leaves nothing behind); `finish`
/// writes `{"summary": ..., "transfers": [...]}` to `FILE.partial`, copying the spool in 1 MiB
/// pieces, and renames it over `FILE`. Creating the spool up front proves early that the
/// report's directory is writable.
///
/// Not thread-safe: one owner at a time calls it (the CLI's event consumer, under its lock,
/// while the run goes on; then the CLI, to finish it). `@unchecked Sendable` only so that it
/// can move between those owners.
public final class ReportWriter: @unchecked Sendable {
  /// The report file's path.
  public let path: String
  private var spool: Int32
  private var count = 0
  /// Entries not yet written to the spool.
  private var pending: [UInt8] = []

  /// Prepares to write the report at `path`; fails when its directory is not writable.
  public init(path: String) throws(ReportFileError) {
    self.path = path
    let fd = SpoolFile.create(in: ReportWriter.directory(of: path), name: "report")
    guard fd >= 0 else { throw .fromErrno(path) }
    self.spool = fd
  }

  deinit {
    if spool >= 0 { close(spool) }
  }

  /// Appends one finished entry. Entries are gathered and written to the spool 256 KiB at a
  /// time, not one system call each.
  public func add(_ outcome: EntryOutcome) throws(ReportFileError) {
    pending.append(contentsOf: (count == 0 ? "\n" : ",\n").utf8)
    ReportJSON.appendTransfer(outcome, to: &pending)
    count += 1
    if pending.count >= 256 << 10 { try flush() }
  }

  /// Writes the gathered entries to the spool.
  private func flush() throws(ReportFileError) {
    let ok = pending.withUnsafeBytes { writeAll(spool, $0) }
    pending.removeAll(keepingCapacity: true)
    guard ok else { throw .fromErrno(path) }
  }

  /// Writes the complete report with `summary` and puts it in place. Call once, at the end.
  public func finish(summary: RunSummary) throws(ReportFileError) {
    try flush()
    let file = try OutputFile(path: path)
    try file.write("{\"summary\":" + ReportJSON.summary(summary) + ",\n\"transfers\":[")
    guard lseek(spool, 0, SEEK_SET) == 0 else { throw .fromErrno(path) }
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
    defer { buffer.deallocate() }
    while true {
      let got = read(spool, buffer.baseAddress, buffer.count)
      if got < 0 {
        if errno == EINTR { continue }
        throw .fromErrno(path)
      }
      if got == 0 { break }
      try file.write(UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
    }
    try file.write(count == 0 ? "]}\n" : "\n]}\n")
    try file.commit()
    close(spool)
    spool = -1
  }

  /// The directory holding `path` (`.` for a bare file name).
  static func directory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }
}
