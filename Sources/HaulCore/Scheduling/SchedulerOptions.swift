/// How a run behaves: the options of `haul run`, as the library takes them. Each default is
/// the CLI's (docs/manual.md), said with its reason.
public struct SchedulerOptions: Sendable {
  /// Root directory for every entry's `path` (`-o`).
  public var outputDirectory: String
  /// Transfers in flight at once (`-j N`); with `automaticConcurrency`, the most. 16 by
  /// default: enough transfers to keep a link busy while each waits for its server, few
  /// enough that no server is flooded (`automaticConcurrency` finds more where it pays).
  public var concurrency: Int
  /// Whether the run finds its own number of transfers in flight (`-j auto`): it starts at
  /// 16 and grows while that makes the run faster, shrinks on 429 and 503, and never passes
  /// `concurrency`. Off, `concurrency` transfers run at once, as many as asked.
  public var automaticConcurrency = false
  /// Transfers in flight to one host (`--per-host`), a ceiling. 8 by default: half of the
  /// run on one server at most, so one host cannot take every slot of a mixed manifest.
  public var perHost: Int
  /// Retries per source after its first attempt (`--retries`). 5 by default: with the
  /// back-off below (1, 2, 4, 8, 16 s), a source has about half a minute to recover before
  /// the next is tried.
  public var retries: Int
  /// A transfer that moves no byte for this many seconds fails (`--timeout`). 30 by
  /// default: silence, not slowness, ends a transfer, and half a minute of it is past what
  /// a busy server or a congested link leaves.
  public var stallTimeout: Double
  /// Headers added to every request (`--header`); secrets. None by default.
  public var headers: [HTTPField]
  /// fsync each finished file before its rename and its directory after (`--fsync`). Off
  /// by default, as in curl and wget: a crash loses at most unflushed bytes of files that a
  /// rerun checks again, and a sync per file slows a run of small files down.
  public var fsync: Bool
  /// Give each finished download the mtime of its final response's `Last-Modified`
  /// (on unless `--no-remote-time`), as wget does by default.
  public var remoteTime = true
  /// Re-check a download whose destination exists and whose entry expects no `size` and no
  /// digest with a conditional request (`--refresh`), instead of skipping it; such runs
  /// also record each downloaded file's ETag (`RefreshCheck`). Off by default: a file in
  /// place is taken as done, and a rerun sends no request for it.
  public var refresh = false
  /// First retry delay in seconds; doubles per retry, with jitter. 1 by default: a server
  /// that dropped one request is asked again soon, one that is struggling ever more slowly.
  public var backoffBase: Double
  /// Longest retry delay in seconds (a server's `Retry-After` may ask for more, up to 600).
  /// 60 by default, so that no retry waits longer than a minute unless the server asks.
  public var backoffCap: Double
  /// Entries known in total, for progress (set after validation counted them); unknown by
  /// default.
  public var expectedTotal: Int?
  /// Bytes expected in total (sum of known sizes), for progress.
  public var expectedBytes: Int64?
  /// Seconds between progress samples. 0.25 by default: a display that moves four times a
  /// second, at a cost no run notices.
  public var progressInterval: Double
  /// The longest a host that stopped answering is waited for before its entries spend
  /// their retries again, in seconds. 600 by default: a server restarted or a network that
  /// came back within ten minutes costs no entry its retries.
  public var outageLimit: Double
  /// Ranges fetched in parallel for one large download (`--segments`); 1 keeps every file
  /// one stream, the default: with many files in flight, one stream each already fills the
  /// link.
  public var segments: Int
  /// Downloads smaller than this are never split (`--min-segment-size`). 8 MiB by
  /// default: below it, a segment's extra request costs more than its parallel bytes gain.
  public var minSegmentSize: Int64
  /// Changes each request before it is sent and handles 401s (`--auth-command`); none by
  /// default.
  public var interceptor: (any RequestInterceptor)?
  /// `.netrc` logins and the run's cookies (`--netrc`, `--cookies`, `--cookie-jar`), added
  /// to every hop of every exchange by `RedirectWalk`; none by default.
  public var httpState: HTTPState?
  /// Whether a download whose entry gives no `sha256` still has its SHA-256 computed, for
  /// the report and events to carry. Entries with a `sha256` are always hashed and checked.
  /// Off, such a download costs no digest work at all (the CLI turns it on only when
  /// `--report` or `--events` will show the digest). On by default in the library, whose
  /// outcomes always carry a digest to show.
  public var digestsWithoutChecksum: Bool
  /// Whether downloads ask for the server's digests (`Want-Repr-Digest`) and check every one
  /// the server declares (`Repr-Digest`, `Content-Digest`, `Digest`, `x-goog-hash`,
  /// `x-amz-checksum-sha256`) over the whole file; off with `--no-server-digests`. On by
  /// default: a digest the server offers is a check that costs one more header.
  public var serverDigests: Bool
  /// Listers asked in order whether they list a folder entry, the first that does listing
  /// it: the protocols plugged in beside the core (an object store's prefixes, folder
  /// uploads to it, web folders). None by default: an entry no lister takes is one transfer.
  package var folderListers: [any FolderLister] = []
  /// Ways of carrying an upload in more than one request (a resumable protocol, an object
  /// store's multipart upload), asked in order; none by default: every upload is one request.
  package var uploadStrategies: [any UploadStrategy] = []
  /// Reads the start of an error answer's body for the server's own error code (an object
  /// store's XML error document); none by default: the status alone decides.
  package var errorBodies: (any ErrorBodyClassifier)?
  /// Tells why a server refused a request where the status alone does not (a Hub's gated
  /// repository); none by default: the status and the error body tell it.
  package var refusals: (any RefusalExplainer)?
  /// Servers whose ranges declare no digest, asked a `HEAD` by a segmented download; none
  /// by default.
  package var headDigests: (any HeadDigestSource)?
  /// Servers whose downloads go in their own number of segments (`SegmentDefaults`); none
  /// by default: every download goes in `segments`.
  package var segmentDefaults: (any SegmentDefaults)?
  /// Origins whose transfers may run more at once than `perHost` (`HostLimits`); none by
  /// default. The transport must allow as many connections to one host.
  package var hostLimits: (any HostLimits)?
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
