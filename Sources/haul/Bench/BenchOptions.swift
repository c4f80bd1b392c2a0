import Foundation
import HaulCore
import HaulResumable
import HaulWeb

/// `haul bench`'s options, typed and checked: which transports to compare, how often, and
/// the `run` options that shape every run the same way.
struct BenchOptions: Sendable {
  var manifest: String
  /// Where upload bodies are read from; each run's downloads go to a fresh folder under it.
  var output = "."
  /// The `-j` values to compare (a sweep: `-j 4,16,64,auto`), each run through every
  /// transport in every round.
  var levels: [BenchLevel] = [
    BenchLevel(concurrency: ConcurrencyController.defaultCeiling, automatic: true)
  ]
  var perHost = 8
  /// The transports in the order they run each round; ratios are against the first.
  var transports: [TransportChoice] = [.curl, .urlsession]
  /// Rounds; each runs every transport once (A B A B ...).
  var repeats = 3
  var retries = 5
  var timeout: Double = 30
  /// `--header` fields: secrets, never printed.
  var headers: [HTTPField] = []
  var cacert: String?
  var json: String?

  init(_ parsed: ParsedArguments) throws(UsageError) {
    let values = OptionValues(command: "bench")
    manifest = try RunOptions.manifestArgument(parsed, command: "bench")
    output = try RunOptions.outputDirectory(parsed, command: "bench")
    if let text = parsed.value("concurrency") {
      levels = try BenchOptions.levels(text, values)
    }
    if let text = parsed.value("per-host") {
      perHost = try values.count("per-host", text, in: 1...4096)
    }
    if let text = parsed.value("transports") {
      transports = try BenchOptions.transports(text)
    }
    if let text = parsed.value("repeat") {
      repeats = try values.count("repeat", text, in: 1...1000)
    }
    if let text = parsed.value("retries") {
      retries = try values.count("retries", text, in: 0...100)
    }
    if let text = parsed.value("timeout") {
      timeout = try values.seconds("timeout", text)
    }
    for text in parsed.all("header") {
      headers.append(try values.header(text))
    }
    if let path = parsed.value("cacert") {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
        !isDirectory.boolValue, FileManager.default.isReadableFile(atPath: path)
      else {
        throw UsageError("--cacert '\(path)' is not a readable file", command: "bench")
      }
      for transport in transports {
        if let refusal = TransportFactory.extraCACertificatesRefusal(transport, command: "bench") {
          throw refusal
        }
      }
      cacert = path
    }
    json = try parsed.value("json").map { (path) throws(UsageError) in
      try RunOptions.outputFile("json", path, command: "bench")
    }
  }

  /// `4,16,auto`: `-j` values, each at most once.
  static func levels(_ text: String, _ values: OptionValues) throws(UsageError) -> [BenchLevel] {
    var levels: [BenchLevel] = []
    for item in text.split(separator: ",", omittingEmptySubsequences: false) {
      let (concurrency, automatic) = try values.concurrency(String(item))
      let level = BenchLevel(concurrency: concurrency, automatic: automatic)
      guard !levels.contains(level) else {
        throw UsageError("-j names '\(item)' twice", command: "bench")
      }
      levels.append(level)
    }
    return levels
  }

  /// `curl,urlsession`: known names, each at most once.
  static func transports(_ text: String) throws(UsageError) -> [TransportChoice] {
    var choices: [TransportChoice] = []
    for name in text.split(separator: ",", omittingEmptySubsequences: false) {
      guard let choice = TransportChoice(rawValue: String(name)) else {
        throw UsageError(
          "--transports takes curl and urlsession, comma-separated, not '\(name)'",
          command: "bench")
      }
      guard !choices.contains(choice) else {
        throw UsageError("--transports names '\(name)' twice", command: "bench")
      }
      choices.append(choice)
    }
    return choices
  }

  /// The options every run's scheduler takes; `directory` is the run's fresh folder. As in
  /// `haul run` without `--report`, only entries with a `sha256` are hashed.
  func schedulerOptions(
    directory: String, level: BenchLevel, _ statistics: ManifestStatistics
  ) -> SchedulerOptions {
    var options = SchedulerOptions(
      outputDirectory: directory, concurrency: level.concurrency, perHost: perHost,
      retries: retries, stallTimeout: timeout, headers: headers,
      expectedTotal: statistics.entries,
      expectedBytes: statistics.entriesWithoutSize == 0 ? statistics.knownBytes : nil,
      digestsWithoutChecksum: false)
    options.automaticConcurrency = level.automatic
    options.addResumableUploads()
    options.addWebFolders()
    return options
  }

  /// The options every run's transport is created with at `level`.
  func transportOptions(_ level: BenchLevel) -> TransportOptions {
    TransportOptions(
      maxConnections: level.concurrency, maxConnectionsPerHost: perHost,
      extraCACertificates: cacert)
  }
}

/// One `-j` value of a bench sweep.
struct BenchLevel: Sendable, Hashable {
  /// The transfers in flight, or under `automatic` the most.
  var concurrency: Int
  /// `-j auto`.
  var automatic: Bool

  /// How the table names it: `16`, `auto`.
  var label: String { automatic ? "auto" : "\(concurrency)" }
}
