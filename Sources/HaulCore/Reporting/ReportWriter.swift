#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes the `--report` file (docs/manual.md, "Report") without holding the transfers
/// in memory, so that a killed process leaves a readable record of what ended.
///
/// Each finished entry's object is appended, as one line, to the report's spool
/// `FILE.spool` beside it (`spoolPath`) the moment it is added: one `write` per entry, so
/// a process killed at any point (even by `kill -9`) leaves a spool of JSON Lines holding
/// every entry that ended before it died. `finish` writes `{"summary": ...,
/// "transfers": [...]}` to `FILE.partial`, copying the spool in 1 MiB pieces, renames it
/// over `FILE` and removes the spool. Creating the spool up front proves early that the
/// report's directory is writable; a run that finds a spool a killed run left replaces it.
///
/// Not thread-safe: one owner at a time calls it (the CLI's event consumer, under its lock,
/// while the run goes on; then the CLI, to finish it).
// unchecked: one owner at a time, the event consumer under the run's event lock, then the CLI.
public final class ReportWriter: @unchecked Sendable {
  /// The report file's path.
  public let path: String
  /// The spool's path: `path` + `.spool`.
  public let spoolPath: String
  private var spool: Int32
  private var count = 0
  /// The line being written, kept to reuse its storage.
  private var line: [UInt8] = []

  /// Prepares to write the report at `path`; fails when its directory is not writable.
  public init(path: String) throws(ReportFileError) {
    self.path = path
    spoolPath = ReportWriter.spoolPath(of: path)
    let fd = open(spoolPath, O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o666)
    guard fd >= 0 else { throw .fromErrno(path) }
    self.spool = fd
  }

  deinit {
    if spool >= 0 { close(spool) }
  }

  /// The spool of the report at `path`, which a killed run leaves behind.
  public static func spoolPath(of path: String) -> String { path + ".spool" }

  /// Appends one finished entry to the spool, as one line, at once.
  public func add(_ outcome: EntryOutcome) throws(ReportFileError) {
    line.removeAll(keepingCapacity: true)
    ReportJSON.appendTransfer(outcome, to: &line)
    line.append(UInt8(ascii: "\n"))
    let ok = line.withUnsafeBytes { writeAll(spool, $0) }
    guard ok else { throw .fromErrno(path) }
    count += 1
  }

  /// Writes the complete report with `summary`, puts it in place and removes the spool.
  /// Call once, at the end. `progressed` is called after each MiB of the spool is copied, so
  /// that a caller with a deadline (the CLI after a signal) sees a long report still moving.
  public func finish(
    summary: RunSummary, progressed: () -> Void = {}
  ) throws(ReportFileError) {
    let file = try OutputFile(path: path)
    try file.write("{\"summary\":" + ReportJSON.summary(summary) + ",\n\"transfers\":[")
    guard lseek(spool, 0, SEEK_SET) == 0 else { throw .fromErrno(path) }
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
    defer { buffer.deallocate() }
    // Each spool line is one object without a raw newline (JSON escapes them in strings);
    // in the report, the newline between two objects becomes ",\n" and the first object
    // follows a "\n". Each piece read is written back in one `write`, separators and all.
    var out: [UInt8] = []
    out.reserveCapacity(buffer.count + buffer.count / 8)
    var separator: [UInt8] = [UInt8(ascii: "\n")]
    let comma: [UInt8] = Array(",\n".utf8)
    while true {
      let got = read(spool, buffer.baseAddress, buffer.count)
      if got < 0 {
        if errno == EINTR { continue }
        throw .fromErrno(path)
      }
      if got == 0 { break }
      defer { progressed() }
      out.removeAll(keepingCapacity: true)
      var start = 0
      while start < got {
        let found = memchr(buffer.baseAddress! + start, Int32(UInt8(ascii: "\n")), got - start)
        let newline = found.map { buffer.baseAddress!.distance(to: $0) }
        let end = newline ?? got
        if end > start {
          out.append(contentsOf: separator)
          separator = []
          out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[start..<end]))
        }
        if newline != nil { separator = comma }
        start = end + 1
      }
      try file.write(out)
    }
    try file.write(count == 0 ? "]}\n" : "\n]}\n")
    try file.commit()
    close(spool)
    spool = -1
    unlink(spoolPath)
  }

  /// The directory holding `path` (`.` for a bare file name).
  static func directory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }
}
