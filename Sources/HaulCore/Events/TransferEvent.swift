/// What the scheduler reports as a run goes on. Delivered through an `AsyncStream`; progress
/// is sampled (a few times a second), never one event per chunk.
public enum TransferEvent: Sendable {
  /// An entry's first attempt is starting (not sent for skipped entries).
  case started(EntryInfo)
  /// Sampled progress of the transfers in flight, and of the run as a whole.
  case progress(ProgressSnapshot)
  /// A further attempt is about to start after `delay` seconds.
  case retry(EntryInfo, attempt: Int, code: TransferError.Code, delay: Double)
  /// An entry ended: done, skipped or failed.
  case finished(EntryOutcome)
  /// The run ended; always the last event.
  case summary(RunSummary)
}

/// Identifies an entry in events.
public struct EntryInfo: Sendable, Hashable {
  public var line: Int
  public var path: String
  public var operation: ManifestEntry.Operation
  /// Total bytes expected, when known (manifest `size`, or the response's length).
  public var expectedBytes: Int64?
  public init(line: Int, path: String, operation: ManifestEntry.Operation, expectedBytes: Int64?) {
    self.line = line
    self.path = path
    self.operation = operation
    self.expectedBytes = expectedBytes
  }
}

/// The end of one entry: what the report's `transfers` array holds.
public struct EntryOutcome: Sendable, Hashable {
  public enum Status: String, Sendable, Hashable {
    case ok
    case skipped
    case failed
  }

  /// The fields that hold references (strings, arrays, digests, the error), kept in one box
  /// so that a copy of the outcome costs one retain (`CopyOnWriteBox`), as `ManifestEntry`'s
  /// do: an outcome is copied into its `finished` event and into the run's tally, and a
  /// skipped file's on its way from the listing there.
  private struct Parts: Sendable, Hashable {
    var text: ManifestLineText
    var url: String
    var path: String
    var sha256: String?
    var digests: DigestValues
    var verified: [String]
    var error: TransferError?
    var refresh: RefreshResult?
  }

  private var parts: CopyOnWriteBox<Parts>

  public var line: Int
  /// The manifest line, verbatim (for `--failed`).
  public var text: String {
    get { parts.value.text.text }
    set { parts.value.text = ManifestLineText(newValue) }
  }
  /// The first source's URL without userinfo (the initializer removes any).
  public var url: String {
    get { parts.value.url }
    _modify { yield &parts.value.url }
  }
  public var path: String {
    get { parts.value.path }
    _modify { yield &parts.value.path }
  }
  public var operation: ManifestEntry.Operation
  public var status: Status
  /// Bytes moved in this run (0 when skipped; the remainder when resumed).
  public var bytes: Int64
  public var attempts: Int
  public var seconds: Double
  /// The file's digest whenever it was computed or checked.
  public var sha256: String? {
    get { parts.value.sha256 }
    _modify { yield &parts.value.sha256 }
  }
  /// Every digest of the file that was computed (or read back when skipped), lowercase hex.
  /// The report's `digests` also shows `sha256` when only that field is set.
  public var digests: DigestValues {
    get { parts.value.digests }
    _modify { yield &parts.value.digests }
  }
  /// What the file was checked against and matched, as `ExpectedDigest.source` names it
  /// (`manifest:sha256`, `checksums:md5`, `server:repr-digest:sha-512`), in the order checked.
  public var verified: [String] {
    get { parts.value.verified }
    _modify { yield &parts.value.verified }
  }
  /// Set for failures only.
  public var error: TransferError? {
    get { parts.value.error }
    _modify { yield &parts.value.error }
  }
  /// What `--refresh` found, for an entry whose file in place it re-checked.
  public var refresh: RefreshResult? {
    get { parts.value.refresh }
    _modify { yield &parts.value.refresh }
  }

  public init(
    line: Int, text: String, url: String, path: String, operation: ManifestEntry.Operation,
    status: Status, bytes: Int64, attempts: Int, seconds: Double, sha256: String?,
    error: TransferError?, digests: DigestValues = DigestValues(), verified: [String] = [],
    refresh: RefreshResult? = nil
  ) {
    self.init(
      line: line, text: ManifestLineText(text), url: url, path: path, operation: operation,
      status: status, bytes: bytes, attempts: attempts, seconds: seconds, sha256: sha256,
      error: error, digests: digests, verified: verified, refresh: refresh)
  }

  /// An outcome whose manifest line is `text`, written only when read.
  init(
    line: Int, text: ManifestLineText, url: String, path: String,
    operation: ManifestEntry.Operation, status: Status, bytes: Int64, attempts: Int,
    seconds: Double, sha256: String?, error: TransferError?,
    digests: DigestValues = DigestValues(), verified: [String] = [],
    refresh: RefreshResult? = nil
  ) {
    parts = CopyOnWriteBox(
      Parts(
        text: text, url: RedactedURL.string(url), path: path, sha256: sha256, digests: digests,
        verified: verified, error: error, refresh: refresh))
    self.line = line
    self.operation = operation
    self.status = status
    self.bytes = bytes
    self.attempts = attempts
    self.seconds = seconds
  }
}

/// A sample of the run's progress.
public struct ProgressSnapshot: Sendable {
  /// One transfer in flight.
  public struct Active: Sendable, Hashable {
    public var entry: EntryInfo
    /// Bytes of this entry present so far (including a resumed prefix).
    public var bytes: Int64
    public init(entry: EntryInfo, bytes: Int64) {
      self.entry = entry
      self.bytes = bytes
    }
  }
  /// Entries ended so far (ok, skipped or failed).
  public var finished: Int
  public var failed: Int
  /// Entries known so far (the manifest's count once validation has counted it), each
  /// folder entry replaced by the entries its listing named so far.
  public var total: Int
  /// Bytes moved in this run so far.
  public var bytes: Int64
  /// Bytes expected for the whole run where known (sum of sizes), else nil.
  public var expectedBytes: Int64?
  /// Bytes of the run accounted for so far, to compare with `expectedBytes`: the length of
  /// every finished entry (skipped and failed ones at their expected size), plus what the
  /// transfers in flight hold, resumed prefixes included.
  public var completedBytes: Int64
  /// Sizes learned as the run goes for entries whose manifest line gives none: the length of
  /// each such entry that ended, and the response's length (`Content-Length`, the
  /// `Content-Range` total) or the upload's of each in flight once known. With the sizes the
  /// manifest gives, the bytes known for the run; progress is measured against them.
  public var learnedBytes: Int64
  /// How many entries `learnedBytes` counts.
  public var learnedEntries: Int
  /// The sizes folder listings gave for the files they named so far (a WebDAV
  /// `getcontentlength`, a JSON listing's size, a listed object's): with the manifest's sizes
  /// and `learnedBytes`, the bytes known for the run.
  public var listedBytes: Int64 = 0
  /// The entries without a size folder listings added so far, less the folder entries
  /// listed (each counted as one entry without a size until it is listed): to add to the
  /// manifest's entries without a size. Negative when listings gave more sizes than the
  /// folder entries they replaced.
  public var listedWithoutSize = 0
  public var active: [Active]
  /// Seconds since the run started.
  public var elapsed: Double

  public init(
    finished: Int, failed: Int, total: Int, bytes: Int64, expectedBytes: Int64?,
    active: [Active], elapsed: Double, completedBytes: Int64 = 0, learnedBytes: Int64 = 0,
    learnedEntries: Int = 0
  ) {
    self.completedBytes = completedBytes
    self.learnedBytes = learnedBytes
    self.learnedEntries = learnedEntries
    self.finished = finished
    self.failed = failed
    self.total = total
    self.bytes = bytes
    self.expectedBytes = expectedBytes
    self.active = active
    self.elapsed = elapsed
  }
}

/// The report's `summary` object.
public struct RunSummary: Sendable, Hashable {
  public var total: Int
  public var succeeded: Int
  public var skipped: Int
  public var failed: Int
  public var bytes: Int64
  public var seconds: Double
  public var transport: String
  /// Whether the run was interrupted (SIGINT/SIGTERM).
  public var cancelled: Bool
  /// Entries whose file was checked against at least one digest and matched (ok or skipped).
  public var verified: Int
  /// The most transfers allowed in flight when the run ended: `-j N`, or the level `-j auto`
  /// had chosen by then.
  public var concurrency: Int?
  /// The mean time from a request to the first byte of its answer, in seconds, over the
  /// exchanges whose transport timed them (`TransferTiming.firstByte`).
  public var meanFirstByte: Double?
  /// Connections the run's exchanges opened, when the transport tells.
  public var connections: Int?

  public init(
    total: Int, succeeded: Int, skipped: Int, failed: Int, bytes: Int64, seconds: Double,
    transport: String, cancelled: Bool, verified: Int = 0
  ) {
    self.total = total
    self.succeeded = succeeded
    self.skipped = skipped
    self.failed = failed
    self.bytes = bytes
    self.seconds = seconds
    self.transport = transport
    self.cancelled = cancelled
    self.verified = verified
  }
}
