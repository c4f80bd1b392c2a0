/// The outcome of one manifest entry of a job: a row of the `entries` table, what the job's
/// report and its `entries` call show.
public struct EntryRecord: Sendable, Equatable {
  /// How an entry ended, spelled as the report spells it.
  public enum Status: String, Sendable, CaseIterable {
    /// Fetched (or uploaded) in full.
    case ok
    /// Already complete on disk; nothing was transferred.
    case skipped
    /// Failed after its retries.
    case failed
  }

  /// The job's id.
  public var job: String
  /// The entry's line in the job's manifest: entries are keyed and ordered by it.
  public var line: Int
  /// The output path, relative to the job's output directory.
  public var path: String
  public var url: String
  public var status: Status
  /// The error code of a failed entry (`http_404`, `timeout`, ...).
  public var code: String?
  /// Bytes the entry received.
  public var bytes: Int64
  /// The entry as the `--report` document shows it: one JSON object's text.
  public var report: String

  public init(
    job: String, line: Int, path: String, url: String, status: Status, code: String? = nil,
    bytes: Int64, report: String
  ) {
    self.job = job
    self.line = line
    self.path = path
    self.url = url
    self.status = status
    self.code = code
    self.bytes = bytes
    self.report = report
  }
}
