import Foundation
import HaulCore

/// `haul bench`'s options, typed and checked: which transports to compare, how often, and
/// the `run` options that shape every run the same way.
struct BenchOptions: Sendable {
  var manifest: String
  /// Where upload bodies are read from; each run's downloads go to a fresh folder under it.
  var output = "."
  var concurrency = 16
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
      concurrency = try values.count("concurrency", text, in: 1...4096)
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
      cacert = path
    }
    json = try parsed.value("json").map { (path) throws(UsageError) in
      try RunOptions.outputFile("json", path, command: "bench")
    }
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
  func schedulerOptions(directory: String, _ statistics: ManifestStatistics) -> SchedulerOptions {
    SchedulerOptions(
      outputDirectory: directory, concurrency: concurrency, perHost: perHost, retries: retries,
      stallTimeout: timeout, headers: headers, expectedTotal: statistics.entries,
      expectedBytes: statistics.entriesWithoutSize == 0 ? statistics.knownBytes : nil,
      digestsWithoutChecksum: false)
  }

  /// The options every run's transport is created with.
  var transportOptions: TransportOptions {
    TransportOptions(
      maxConnections: concurrency, maxConnectionsPerHost: perHost, extraCACertificates: cacert)
  }
}
