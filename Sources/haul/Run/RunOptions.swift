import Foundation
import HaulCore
import HaulHF
import HaulResumable
import HaulS3
import HaulWeb

/// The transports `--transport` can name.
enum TransportChoice: String, CaseIterable, Sendable {
  case curl
  case urlsession
}

/// `haul run`'s options, typed and checked (docs/manual.md, "Options of haul run").
struct RunOptions: Sendable {
  var manifest: String
  var output = "."
  /// `--hf-cache`: `hf://` folders land in the Hub cache's layout, `output` being the cache.
  var hfCache = false
  /// `-j N`, or under `-j auto` (the default) the most transfers in flight.
  var concurrency = ConcurrencyController.defaultCeiling
  /// `-j auto`: the run finds its own concurrency, up to `concurrency`.
  var automaticConcurrency = true
  var perHost = 8
  /// Whether `--per-host` was given: without it the Hub's origin takes more
  /// (`HFHostLimits`), and the transport allows that many connections to a host.
  var perHostGiven = false
  var transport = TransportChoice.curl
  var retries = 5
  /// `--segments N`; `nil` when not given: 1, and an S3 endpoint's own default for its
  /// objects (`S3Endpoint.defaultSegments`) and the Hub's for its files
  /// (`HFEndpoint.defaultSegments`).
  var segments: Int?
  var loops = TransportOptions.defaultLoops
  /// `--max-rate`, in bytes per second over all transfers.
  var maxRate: Double?
  var minSegmentSize: Int64 = 8 << 20
  /// `--auth-command`: run for a bearer token (its output is a secret).
  var authCommand: String?
  var timeout: Double = 30
  /// `--header` fields: secrets, never printed.
  var headers: [HTTPField] = []
  var report: String?
  var events = false
  var quiet = false
  var cacert: String?
  var fsync = false
  var failed: String?
  /// `--shard K/N`: run only the entries of this shard.
  var shard: Shard?
  /// `--checksums` files, in the order given; read before the manifest.
  var checksums: [String] = []
  /// `--no-server-digests`: neither ask for nor check the digests servers declare.
  var serverDigests = true
  /// `--s3` and its settings, when given.
  var s3: S3Choice?
  /// Which proxy each request goes through (`--proxy`, `--no-proxy`, the variables).
  var proxyRules = ProxyRules.direct
  /// `--no-remote-time`: keep the download time as each file's mtime.
  var noRemoteTime = false
  /// `--refresh`: re-check destinations in place whose entry gives no size or digest.
  var refresh = false
  /// `--recursive`: download lines whose URL ends in `/` are folders to mirror.
  var recursive = false
  /// `--depth`, `--include`, `--exclude`: how folders are expanded.
  var folders = FolderOptions()
  /// `--resumable` and `--abort-incomplete`, for uploads through a resumable protocol.
  var resumable = ResumableOptions()
  /// `--netrc`, `--netrc-file`, `--cookies`, `--cookie-jar`.
  var session = SessionOptions()

  /// What `--s3`, `--s3-endpoint`, `--s3-region` and `--s3-addressing` asked for; resolved
  /// with the credentials by `S3Setup` when the run starts.
  struct S3Choice: Sendable {
    var endpoint: String?
    var region: String?
    var addressing: S3Addressing?
    /// `--s3-page-size`: keys per `ListObjectsV2` page of a prefix.
    var pageSize = S3PrefixListing.defaultPageSize
    /// `--multipart-threshold`, `--part-size`, `--part-concurrency`, `--abort-incomplete`.
    var multipartThreshold: Int64 = 64 << 20
    var partSize: Int64 = 16 << 20
    var partConcurrency = S3MultipartOptions.defaultPartConcurrency
    var abortIncomplete = false
  }

  /// Reads and checks `parsed`.
  init(_ parsed: ParsedArguments) throws(UsageError) {
    let values = OptionValues(command: "run")
    manifest = try RunOptions.manifestArgument(parsed, command: "run")

    if let text = parsed.value("max-rate") {
      let rate = try values.size("max-rate", text)
      guard rate > 0 else { throw UsageError("--max-rate must be more than 0", command: "run") }
      maxRate = Double(rate)
    }
    if let text = parsed.value("loops") {
      loops = try values.count("loops", text, in: 1...64)
    }
    if let text = parsed.value("segments") {
      segments = try values.count("segments", text, in: 1...64)
    }
    if let command = parsed.value("auth-command") {
      guard !command.trimmingCharacters(in: .whitespaces).isEmpty else {
        throw UsageError("--auth-command needs a command", command: "run")
      }
      authCommand = command
    }

    output = try RunOptions.outputDirectory(parsed, command: "run")
    if let cache = parsed.value("hf-cache") {
      guard parsed.value("output") == nil else {
        throw UsageError(
          "--hf-cache puts files in the Hub cache: give no -o with it", command: "run")
      }
      output =
        cache.isEmpty ? HFSetup.cacheDirectory(in: ProcessInfo.processInfo.environment) : cache
      hfCache = true
    }
    if let text = parsed.value("concurrency") {
      (concurrency, automaticConcurrency) = try values.concurrency(text)
    }
    if let text = parsed.value("per-host") {
      perHost = try values.count("per-host", text, in: 1...4096)
      perHostGiven = true
    }
    if let text = parsed.value("transport") {
      guard let choice = TransportChoice(rawValue: text) else {
        throw UsageError(
          "--transport must be curl or urlsession, not '\(text)'", command: "run")
      }
      transport = choice
    }
    if let text = parsed.value("retries") {
      retries = try values.count("retries", text, in: 0...100)
    }
    if let text = parsed.value("min-segment-size") {
      minSegmentSize = try values.size("min-segment-size", text)
    }
    if let text = parsed.value("timeout") {
      timeout = try values.seconds("timeout", text)
    }
    for text in parsed.all("header") {
      headers.append(try values.header(text))
    }
    report = try parsed.value("report").map { (path) throws(UsageError) in
      try RunOptions.outputFile("report", path, command: "run")
    }
    failed = try parsed.value("failed").map { (path) throws(UsageError) in
      try RunOptions.outputFile("failed", path, command: "run")
    }
    if let text = parsed.value("shard") {
      guard let value = Shard(text) else {
        throw UsageError(
          "--shard must be K/N with 0 <= K < N (e.g. 0/4), not '\(text)'", command: "run")
      }
      shard = value
    }
    checksums = try RunOptions.checksumFiles(parsed, command: "run")
    s3 = try RunOptions.s3Choice(parsed)
    if let text = parsed.value("resumable") {
      guard let kind = ResumableProtocol(rawValue: text) else {
        throw UsageError("--resumable must be tus or ietf, not '\(text)'", command: "run")
      }
      if kind == .ietf, TransportFactory.refusesIETFUploads(transport) {
        throw UsageError(
          "--resumable ietf needs --transport curl: URLSession cannot read the draft's 104"
            + " interim responses", command: "run")
      }
      resumable.protocolForUploads = kind
    }
    resumable.abortIncomplete = parsed.has("abort-incomplete")
    if s3 != nil, authCommand != nil {
      throw UsageError("--s3 and --auth-command cannot be combined", command: "run")
    }
    events = parsed.has("events")
    quiet = parsed.has("quiet")
    fsync = parsed.has("fsync")
    noRemoteTime = parsed.has("no-remote-time")
    refresh = parsed.has("refresh")
    recursive = parsed.has("recursive")
    folders = try RunOptions.folderOptions(parsed, values)
    serverDigests = !parsed.has("no-server-digests")
    proxyRules = try RunOptions.proxyRules(
      parsed, transport: transport, environment: ProcessInfo.processInfo.environment)
    session = try SessionOptions(
      parsed, environment: ProcessInfo.processInfo.environment, command: "run")
    if let path = parsed.value("cacert") {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
        !isDirectory.boolValue, FileManager.default.isReadableFile(atPath: path)
      else {
        throw UsageError("--cacert '\(path)' is not a readable file", command: "run")
      }
      if let refusal = TransportFactory.extraCACertificatesRefusal(transport, command: "run") {
        throw refusal
      }
      cacert = path
    }
  }

  /// The options the scheduler takes; `statistics` come from validating the manifest.
  func schedulerOptions(
    _ statistics: ManifestStatistics, interceptor: (any RequestInterceptor)? = nil
  ) -> SchedulerOptions {
    var options = SchedulerOptions(
      outputDirectory: output, concurrency: concurrency, perHost: perHost, retries: retries,
      stallTimeout: timeout, headers: headers, fsync: fsync,
      expectedTotal: statistics.entries,
      expectedBytes: statistics.entriesWithoutSize == 0 ? statistics.knownBytes : nil,
      interceptor: interceptor, segments: segments ?? 1, minSegmentSize: minSegmentSize,
      digestsWithoutChecksum: report != nil || events, serverDigests: serverDigests)
    options.automaticConcurrency = automaticConcurrency
    options.remoteTime = !noRemoteTime
    options.refresh = refresh
    options.folderListers = s3.map { [S3PrefixListing(pageSize: $0.pageSize)] } ?? []
    // S3's error codes are read with `--s3` or without: a presigned URL of S3 answers so too.
    options.errorBodies = S3ErrorDocument()
    options.folders = folders
    return options
  }

  /// The options the scheduler takes, with `--s3`'s endpoint plugged in (multipart
  /// uploads, checksums by `HEAD`, its default segments, folder uploads as keys), then
  /// resumable uploads, the Hugging Face Hub and web folders.
  func schedulerOptions(
    _ statistics: ManifestStatistics, interceptor: (any RequestInterceptor)?, s3: S3Setup?
  ) -> SchedulerOptions {
    var options = schedulerOptions(statistics, interceptor: interceptor)
    if let s3, let choice = self.s3 {
      options.uploadStrategies = [
        S3MultipartOptions(
          endpoint: s3.endpoint, threshold: choice.multipartThreshold, partSize: choice.partSize,
          partConcurrency: choice.partConcurrency, abortIncomplete: choice.abortIncomplete)
      ]
      options.headDigests = s3.endpoint
      if segments == nil { options.segmentDefaults = s3.endpoint }
      options.folderListers.append(LocalFolderLister(target: S3KeyTarget(endpoint: s3.endpoint)))
    }
    // The protocols beside the core, after S3: an upload that names a resumable protocol
    // goes through it before any other strategy is asked; web folders are listed last, as
    // their collections take a folder upload to any URL.
    options.addResumableUploads(resumable)
    if case .success(let hub) = HubSetup.current {
      options.addHuggingFace(
        endpoint: hub.endpoint, token: hub.token, cache: hfCache,
        segmentsByDefault: segments == nil,
        perHostByDefault: !perHostGiven)
    }
    options.addWebFolders()
    return options
  }

  /// `--depth`, `--include` and `--exclude`, checked.
  static func folderOptions(_ parsed: ParsedArguments, _ values: OptionValues)
    throws(UsageError) -> FolderOptions
  {
    var folders = FolderOptions()
    if let text = parsed.value("depth") {
      folders.depth = try values.count("depth", text, in: 1...1000)
    }
    for (option, keep) in [("include", true), ("exclude", false)] {
      for text in parsed.all(option) {
        do throws(PathGlob.Problem) {
          let glob = try PathGlob(text)
          if keep {
            folders.filter.include.append(glob)
          } else {
            folders.filter.exclude.append(glob)
          }
        } catch {
          throw UsageError("--\(option) '\(text)': \(error.reason)", command: "run")
        }
      }
    }
    return folders
  }

  /// The options the transport is created with.
  var transportOptions: TransportOptions {
    TransportOptions(
      maxConnections: concurrency,
      maxConnectionsPerHost: perHostGiven ? perHost : max(perHost, HFHostLimits.perHost),
      extraCACertificates: cacert,
      maxBytesPerSecond: maxRate, loops: loops, proxyRules: proxyRules)
  }

  /// `--s3` with its settings, checked; the settings without `--s3` are a usage error.
  static func s3Choice(_ parsed: ParsedArguments) throws(UsageError) -> S3Choice? {
    let settings = [
      "s3-endpoint", "s3-region", "s3-addressing", "s3-page-size", "multipart-threshold",
      "part-size", "part-concurrency",
    ]
    guard parsed.has("s3") else {
      if let given = settings.first(where: { parsed.value($0) != nil }) {
        throw UsageError("--\(given) needs --s3", command: "run")
      }
      return nil
    }
    var choice = S3Choice()
    if let text = parsed.value("s3-endpoint") {
      if case .failure(let problem) = S3Endpoint.custom(text) {
        throw UsageError("--s3-endpoint '\(text)' \(problem.reason)", command: "run")
      }
      choice.endpoint = text
    }
    if let text = parsed.value("s3-region") {
      guard !text.isEmpty, text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x2F }) else {
        throw UsageError("--s3-region '\(text)' is not a region name", command: "run")
      }
      choice.region = text
    }
    if let text = parsed.value("s3-addressing") {
      guard let style = S3Addressing(rawValue: text) else {
        throw UsageError("--s3-addressing must be path or virtual, not '\(text)'", command: "run")
      }
      choice.addressing = style
    }
    if let text = parsed.value("s3-page-size") {
      guard let size = Int(text), (1...1000).contains(size) else {
        throw UsageError("--s3-page-size must be 1 to 1000, not '\(text)'", command: "run")
      }
      choice.pageSize = size
    }
    let values = OptionValues(command: "run")
    if let text = parsed.value("multipart-threshold") {
      choice.multipartThreshold = try values.size("multipart-threshold", text)
    }
    if let text = parsed.value("part-size") {
      let size = try values.size("part-size", text)
      guard size >= S3MultipartOptions.minPartSize, size <= 5 << 30 else {
        throw UsageError("--part-size must be 5M to 5G, as S3 asks, not '\(text)'", command: "run")
      }
      choice.partSize = size
    }
    if let text = parsed.value("part-concurrency") {
      guard let count = Int(text), (1...64).contains(count) else {
        throw UsageError("--part-concurrency must be 1 to 64, not '\(text)'", command: "run")
      }
      choice.partConcurrency = count
    }
    choice.abortIncomplete = parsed.has("abort-incomplete")
    return choice
  }

  /// The single MANIFEST argument.
  static func manifestArgument(_ parsed: ParsedArguments, command: String) throws(UsageError)
    -> String
  {
    guard let manifest = parsed.positionals.first else {
      throw UsageError("missing MANIFEST (a file, or '-' for standard input)", command: command)
    }
    guard parsed.positionals.count == 1 else {
      throw UsageError("unexpected argument '\(parsed.positionals[1])'", command: command)
    }
    return manifest
  }

  /// The `--checksums` files: each must name a file (whether it can be read is found when it
  /// is read, before the manifest).
  static func checksumFiles(_ parsed: ParsedArguments, command: String) throws(UsageError)
    -> [String]
  {
    let files = parsed.all("checksums")
    if files.contains(where: \.isEmpty) {
      throw UsageError("--checksums needs a file name", command: command)
    }
    return files
  }

  /// The `-o` directory: `.` by default; it need not exist yet (it is created), but must not
  /// be something other than a directory.
  static func outputDirectory(_ parsed: ParsedArguments, command: String) throws(UsageError)
    -> String
  {
    guard let path = parsed.value("output") else { return "." }
    guard !path.isEmpty else { throw UsageError("--output must not be empty", command: command) }
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
      !isDirectory.boolValue
    {
      throw UsageError("--output '\(path)' is not a directory", command: command)
    }
    return path
  }

  /// An output file option's path, checked to be creatable now rather than at the run's end.
  static func outputFile(_ option: String, _ path: String, command: String) throws(UsageError)
    -> String
  {
    guard !path.isEmpty, !path.hasSuffix("/") else {
      throw UsageError("--\(option) needs a file name", command: command)
    }
    guard FailedEntries.canCreate(path) else {
      throw UsageError(
        "--\(option) '\(path)': its directory does not exist or is not writable",
        command: command)
    }
    return path
  }
}
