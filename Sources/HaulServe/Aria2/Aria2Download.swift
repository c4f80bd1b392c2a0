import HaulCore

/// A download's files and their sources as aria2 shows them, read from its job's manifest
/// with haul's own manifest reader (so a path is the one the run writes), once: a job's
/// manifest never changes.
struct Aria2Download: Sendable, Equatable {
  /// One entry of the job: its path (relative to the job's output directory) and its
  /// sources, the `url` first and then its mirrors.
  struct File: Sendable, Equatable {
    var path: String
    var uris: [String]
    /// The digest the line gives, as aria2's `checksum` option spells it (`sha-256=HEX`).
    var checksum: String?
    /// The line's headers as `Name: value` lines.
    var headers: [String]
  }

  /// The job's first entries: one for a download added through aria2, at most `limit` of a
  /// job of many entries (added through haul's own API).
  var files: [File]

  /// Reads the first `limit` entries of the manifest at `manifest`.
  static func read(manifest: String, output: String, limit: Int = 100) -> Aria2Download {
    let entries = Manifest(path: manifest, displayName: "manifest", outputDirectory: output)
      .entries()
    var files: [File] = []
    for entry in entries.prefix(limit) {
      var checksum: String?
      for (algorithm, hex) in entry.manifestDigests {
        let name = Aria2Options.digestFields.first { $0.value == algorithm.rawValue }?.key
        if checksum == nil, let name { checksum = "\(name)=\(hex)" }
      }
      files.append(
        File(
          path: entry.path, uris: [entry.url.absoluteString] + entry.mirrors.map(\.absoluteString),
          checksum: checksum, headers: entry.headers.map { "\($0.name): \($0.value)" }))
    }
    return Aria2Download(files: files)
  }
}
