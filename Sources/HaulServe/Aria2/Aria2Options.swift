import Foundation

/// aria2's options of a download (`addUri`'s, `changeOption`'s) or of the whole daemon
/// (`changeGlobalOption`'s), checked as aria2 checks them: a value an option does not take
/// is refused with aria2's error, an option aria2 does not know is ignored as aria2 ignores
/// it, and the rest are kept by name with their values as text, as `getOption` answers them.
///
/// Those that mean something to haul are read into the job (`jobOptions`, `checksum`,
/// `headers`); the others are only kept and reported back.
struct Aria2Options: Sendable, Equatable {
  /// Option values by name; `header`'s lines joined by line breaks, as aria2 reports them.
  private(set) var values: [String: String] = [:]

  init() {}

  /// Reads an options object of aria2 (values are strings; `header` may be a list).
  init(_ object: [String: Any]) throws(Aria2Error) {
    for (name, value) in object where Self.known.contains(name) {
      if name == "header" {
        let lines: [String]
        if let text = value as? String {
          lines = [text]
        } else if let list = value as? [Any], list.allSatisfy({ $0 is String }) {
          lines = list.compactMap { $0 as? String }
        } else {
          throw .option(name)
        }
        for line in lines where Self.headerField(line) == nil { throw .option(name) }
        values[name] = lines.joined(separator: "\n")
        continue
      }
      guard let text = value as? String else { throw .option(name) }
      try Self.check(name, text)
      values[name] = text
    }
  }

  subscript(name: String) -> String? { values[name] }

  /// These options with `changes` over them.
  func merging(_ changes: Aria2Options) -> Aria2Options {
    var merged = self
    merged.values.merge(changes.values) { $1 }
    return merged
  }

  /// The haul job options these mean: `split` the segments of a download, `min-split-size`
  /// the smallest one split, `max-download-limit` its rate cap (0: none).
  var jobOptions: JobOptions {
    var options: [String: JobOptions.Value] = [:]
    if let split = values["split"] { options["segments"] = .text(split) }
    if let size = values["min-split-size"], let bytes = Self.size(size) {
      options["min-segment-size"] = .text(String(bytes))
    }
    if let limit = values["max-download-limit"], let bytes = Self.size(limit) {
      options["max-rate"] = bytes > 0 ? .text(String(bytes)) : .flag(false)
    }
    return JobOptions(options)
  }

  /// `checksum`'s manifest field and lowercase hex digest (`sha-256=HEX` is `sha256`).
  var checksum: (field: String, hex: String)? {
    guard let text = values["checksum"], let equals = text.firstIndex(of: "=") else {
      return nil
    }
    let algorithm = text[..<equals].lowercased()
    guard let field = Self.digestFields[algorithm] else { return nil }
    return (field, text[text.index(after: equals)...].lowercased())
  }

  /// `header`'s fields as the manifest's `headers` object holds them.
  var headers: [String: String] {
    var fields: [String: String] = [:]
    for line in (values["header"] ?? "").split(separator: "\n") {
      if let (name, value) = Self.headerField(String(line)) { fields[name] = value }
    }
    return fields
  }

  /// Whether `pause` is `true`.
  var paused: Bool { values["pause"] == "true" }

  // MARK: - aria2's option types

  /// The digests haul checks, by aria2's name of the algorithm, with their lengths in hex;
  /// aria2's others (`sha-224`, `sha-384`, `adler32`) are refused, since haul could not
  /// check them.
  static let digestFields = [
    "sha-256": "sha256", "sha-512": "sha512", "sha-1": "sha1", "md5": "md5",
  ]
  static let digestLengths = ["sha256": 64, "sha512": 128, "sha1": 40, "md5": 32]

  /// Options whose value is a size (`0`, `512K`, `10M`: aria2's units are 1024-based).
  static let sizes: Set<String> = [
    "max-download-limit", "max-upload-limit", "min-split-size", "lowest-speed-limit",
    "max-overall-download-limit", "max-overall-upload-limit", "piece-length", "disk-cache",
    "no-file-allocation-limit",
  ]

  /// Options whose value is a whole number in a range.
  static let integers: [String: ClosedRange<Int>] = [
    "split": 1...Int(Int32.max), "max-connection-per-server": 1...16,
    "max-tries": 0...Int(Int32.max), "timeout": 1...600, "connect-timeout": 1...600,
    "retry-wait": 0...600, "max-concurrent-downloads": 1...Int(Int32.max),
    "max-file-not-found": 0...Int(Int32.max), "max-resume-failure-tries": 0...Int(Int32.max),
    "max-download-result": 0...Int(Int32.max), "auto-save-interval": 0...600,
  ]

  /// Options whose value is `true` or `false`.
  static let booleans: Set<String> = [
    "pause", "allow-overwrite", "auto-file-renaming", "continue", "check-integrity",
    "remote-time", "conditional-get", "http-accept-gzip", "http-no-cache", "always-resume",
    "dry-run", "force-save", "enable-http-keep-alive", "enable-http-pipelining", "reuse-uri",
    "check-certificate", "parameterized-uri", "realtime-chunk-checksum",
    "remove-control-file", "use-head", "content-disposition-default-utf8", "hash-check-only",
    "no-netrc", "http-auth-challenge", "allow-piece-length-change", "pause-metadata",
    "optimize-concurrent-downloads", "keep-unfinished-download-result",
  ]

  /// Options taken as any text.
  static let texts: Set<String> = [
    "dir", "out", "header", "checksum", "user-agent", "referer", "all-proxy", "http-proxy",
    "https-proxy", "ftp-proxy", "no-proxy", "http-user", "http-passwd", "ftp-user",
    "ftp-passwd", "all-proxy-user", "all-proxy-passwd", "gid", "index-out", "select-file",
    "file-allocation", "proxy-method", "stream-piece-selector", "uri-selector",
    "metalink-language", "metalink-location", "metalink-os", "metalink-version",
    "metalink-preferred-protocol", "seed-ratio", "seed-time", "bt-tracker", "bt-exclude-tracker",
    "dht-file-path", "save-session", "log", "log-level", "server-stat-of", "server-stat-if",
    "netrc-path", "rpc-save-upload-metadata", "bt-prioritize-piece", "bt-save-metadata",
    "follow-torrent", "follow-metalink", "ftp-pasv", "ftp-type", "ftp-reuse-connection",
    "min-tls-version", "ssh-host-key-md",
  ]

  static let known = sizes.union(integers.keys).union(booleans).union(texts)

  /// Refuses a value `name` does not take.
  static func check(_ name: String, _ text: String) throws(Aria2Error) {
    if sizes.contains(name), size(text) == nil { throw .option(name) }
    if let range = integers[name] {
      guard let value = Int(text), range.contains(value) else { throw .option(name) }
    }
    if booleans.contains(name), text != "true", text != "false" { throw .option(name) }
    if name == "checksum" {
      guard let equals = text.firstIndex(of: "="),
        let field = digestFields[text[..<equals].lowercased()],
        case let hex = text[text.index(after: equals)...],
        hex.utf8.count == digestLengths[field],
        hex.utf8.allSatisfy({ Aria2Params.isHex($0) })
      else { throw .option(name) }
    }
    if name == "dir" || name == "out", text.isEmpty || text.utf8.contains(0) {
      throw .option(name)
    }
  }

  /// A size as aria2 writes one: digits with an optional `K` or `M` (1024-based).
  static func size(_ text: String) -> Int64? {
    var digits = Substring(text)
    var shift: Int64 = 0
    switch digits.last {
    case "K", "k":
      shift = 10
      digits.removeLast()
    case "M", "m":
      shift = 20
      digits.removeLast()
    default: break
    }
    guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
      let number = Int64(digits), number <= Int64.max >> shift
    else { return nil }
    return number << shift
  }

  /// A header line's name and value (`Name: value`).
  static func headerField(_ line: String) -> (String, String)? {
    guard let colon = line.firstIndex(of: ":") else { return nil }
    let name = line[..<colon].trimmingCharacters(in: .whitespaces)
    guard !name.isEmpty, !line.contains(where: \.isNewline) else { return nil }
    return (name, line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
  }
}
