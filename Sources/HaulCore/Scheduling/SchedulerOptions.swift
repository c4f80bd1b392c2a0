/// How a run behaves: the options of `haul run`, as the library takes them.
public struct SchedulerOptions: Sendable {
  /// Root directory for every entry's `path` (`-o`).
  public var outputDirectory: String
  /// Transfers in flight at once (`-j N`); with `automaticConcurrency`, the most.
  public var concurrency: Int
  /// Whether the run finds its own number of transfers in flight (`-j auto`): it starts at
  /// 16 and grows while that makes the run faster, shrinks on 429 and 503, and never passes
  /// `concurrency`. Off, `concurrency` transfers run at once, as many as asked.
  public var automaticConcurrency = false
  /// Transfers in flight to one host (`--per-host`), a ceiling.
  public var perHost: Int
  /// Retries per source after its first attempt (`--retries`).
  public var retries: Int
  /// A transfer that moves no byte for this many seconds fails (`--timeout`).
  public var stallTimeout: Double
  /// Headers added to every request (`--header`); secrets.
  public var headers: [HTTPField]
  /// fsync each finished file before its rename and its directory after (`--fsync`).
  public var fsync: Bool
  /// Give each finished download the mtime of its final response's `Last-Modified`
  /// (on unless `--no-remote-time`).
  public var remoteTime = true
  /// Re-check a download whose destination exists and whose entry expects no `size` and no
  /// digest with a conditional request (`--refresh`), instead of skipping it; such runs
  /// also record each downloaded file's ETag (`RefreshCheck`).
  public var refresh = false
  /// First retry delay in seconds; doubles per retry, with jitter.
  public var backoffBase: Double
  /// Longest retry delay in seconds (a server's `Retry-After` may ask for more, up to 600).
  public var backoffCap: Double
  /// Entries known in total, for progress (set after validation counted them).
  public var expectedTotal: Int?
  /// Bytes expected in total (sum of known sizes), for progress.
  public var expectedBytes: Int64?
  /// Seconds between progress samples.
  public var progressInterval: Double
  /// The longest a host that stopped answering is waited for before its entries spend
  /// their retries again, in seconds.
  public var outageLimit: Double
  /// Ranges fetched in parallel for one large download (`--segments`); 1 keeps every file
  /// one stream.
  public var segments: Int
  /// Downloads smaller than this are never split (`--min-segment-size`).
  public var minSegmentSize: Int64
  /// Changes each request before it is sent and handles 401s (`--auth-command`).
  public var interceptor: (any RequestInterceptor)?
  /// Whether a download whose entry gives no `sha256` still has its SHA-256 computed, for
  /// the report and events to carry. Entries with a `sha256` are always hashed and checked.
  /// Off, such a download costs no digest work at all (the CLI turns it on only when
  /// `--report` or `--events` will show the digest).
  public var digestsWithoutChecksum: Bool
  /// Whether downloads ask for the server's digests (`Want-Repr-Digest`) and check every one
  /// the server declares (`Repr-Digest`, `Content-Digest`, `Digest`, `x-goog-hash`,
  /// `x-amz-checksum-sha256`) over the whole file; off with `--no-server-digests`.
  public var serverDigests: Bool
  /// Lists `s3://` prefix entries page by page as the run reaches them (`--s3`); `nil`
  /// passes every entry on as it is.
  package var s3Listing: S3PrefixListing?
  /// Sends uploads to the S3 endpoint above a threshold in parts, resumable across runs
  /// (`--s3`); `nil` sends every upload whole.
  package var s3Multipart: S3MultipartOptions?
  /// How folder entries are expanded (`--depth`).
  package var folders = FolderOptions()

  public init(
    outputDirectory: String = ".", concurrency: Int = 16, perHost: Int = 8, retries: Int = 5,
    stallTimeout: Double = 30, headers: [HTTPField] = [], fsync: Bool = false,
    backoffBase: Double = 1, backoffCap: Double = 60, expectedTotal: Int? = nil,
    expectedBytes: Int64? = nil, progressInterval: Double = 0.25, outageLimit: Double = 600,
    interceptor: (any RequestInterceptor)? = nil, segments: Int = 1,
    minSegmentSize: Int64 = 8 << 20, digestsWithoutChecksum: Bool = true,
    serverDigests: Bool = true
  ) {
    self.digestsWithoutChecksum = digestsWithoutChecksum
    self.serverDigests = serverDigests
    self.segments = max(1, segments)
    self.minSegmentSize = minSegmentSize
    self.outputDirectory = outputDirectory
    self.concurrency = concurrency
    self.perHost = perHost
    self.retries = retries
    self.stallTimeout = stallTimeout
    self.headers = headers
    self.fsync = fsync
    self.backoffBase = backoffBase
    self.backoffCap = backoffCap
    self.expectedTotal = expectedTotal
    self.expectedBytes = expectedBytes
    self.progressInterval = progressInterval
    self.outageLimit = outageLimit
    self.interceptor = interceptor
  }
}
