#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The `--failed` file: the manifest lines of the failed entries, verbatim, in manifest order,
/// so that `haul run FILE` retries just those.
///
/// Holds only the failed entries' (line, text) pairs; they arrive in completion order and are
/// sorted when written.
public struct FailedEntries: Sendable {
  private var entries: [(line: Int, text: String)] = []

  public init() {}

  /// The number of failed entries recorded.
  public var count: Int { entries.count }

  /// Records `outcome` if it failed.
  public mutating func add(_ outcome: EntryOutcome) {
    guard outcome.status == .failed else { return }
    add(line: outcome.line, text: outcome.text)
  }

  /// Records the manifest line `line` whose text is `text`.
  public mutating func add(line: Int, text: String) {
    entries.append((line, text))
  }

  /// The file's content: one line per failed entry, in manifest order; empty when none.
  public var text: String {
    entries.sorted { $0.line < $1.line }.map { $0.text + "\n" }.joined()
  }

  /// Writes the file at `path` (always, empty when nothing failed), replacing it atomically.
  public func write(to path: String) throws(ReportFileError) {
    let file = try OutputFile(path: path)
    for entry in entries.sorted(by: { $0.line < $1.line }) {
      try file.write(entry.text + "\n")
    }
    try file.commit()
  }

  /// Whether a file at `path` could be created: its directory exists and is writable.
  /// Checked before a run so that a typo does not surface only at its end.
  public static func canCreate(_ path: String) -> Bool {
    access(ReportWriter.directory(of: path), W_OK | X_OK) == 0
  }
}
