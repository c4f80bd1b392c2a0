/// One job as the journal holds it: a row of the `jobs` table.
///
/// Times are Unix seconds. The counters are the daemon's, written with the job
/// (`JournalWrite.updateJob`); `Journal.entryCounts(job:)` recounts them from the recorded
/// outcomes after a crash.
public struct JobRecord: Sendable, Equatable {
  /// 16 hex digits.
  public var id: String
  /// The job's place in the queue: smaller first. A real number, so that a job moves between
  /// two others by taking a position between theirs, without renumbering the rest.
  public var position: Double
  public var state: JobState
  /// The output directory (inside one of the daemon's roots).
  public var output: String
  /// The job's options as a JSON object's text (`{"max-rate": "10M"}`).
  public var options: String
  /// The path of the job's manifest file, which the daemon keeps while the job is known.
  public var manifest: String
  /// The name the job is shown with (`manifest.jsonl`).
  public var name: String
  /// How many entries the manifest holds.
  public var total: Int
  /// The sum of the entries' declared sizes, when every entry declares one.
  public var expectedBytes: Int64?
  public var succeeded: Int
  public var skipped: Int
  public var failed: Int
  /// Bytes received so far.
  public var bytes: Int64
  /// When the job was accepted.
  public var created: Double
  /// When its first run started.
  public var started: Double?
  /// When it ended (`complete`, `error` or `removed`).
  public var ended: Double?

  public init(
    id: String, position: Double, state: JobState = .waiting, output: String,
    options: String = "{}", manifest: String, name: String, total: Int,
    expectedBytes: Int64? = nil, succeeded: Int = 0, skipped: Int = 0, failed: Int = 0,
    bytes: Int64 = 0, created: Double, started: Double? = nil, ended: Double? = nil
  ) {
    self.id = id
    self.position = position
    self.state = state
    self.output = output
    self.options = options
    self.manifest = manifest
    self.name = name
    self.total = total
    self.expectedBytes = expectedBytes
    self.succeeded = succeeded
    self.skipped = skipped
    self.failed = failed
    self.bytes = bytes
    self.created = created
    self.started = started
    self.ended = ended
  }
}
