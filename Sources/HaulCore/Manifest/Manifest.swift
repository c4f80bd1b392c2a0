/// A manifest file: JSON Lines of transfers (see SPEC.md, "Manifest"), read as a stream.
public struct Manifest: Sendable {
  /// The file to read (standard input is spooled to a temporary file by the caller first).
  public var path: String
  /// The name used in error messages: the path as the user gave it, or `-` for stdin.
  public var displayName: String
  /// The output directory entries' paths are relative to (`-o`).
  public var outputDirectory: String

  public init(path: String, displayName: String, outputDirectory: String) {
    self.path = path
    self.displayName = displayName
    self.outputDirectory = outputDirectory
  }

  /// Checks every line, in one streaming pass, before anything is transferred: the first bad
  /// line throws. Memory is bounded by duplicate detection (a compact hash per entry).
  public func validate() throws(ManifestError) -> ManifestStatistics {
    fatalError("being written")
  }

  /// The manifest's entries, parsed again line by line as they are pulled; for a manifest
  /// that `validate()` accepted.
  public func entries() -> ManifestEntries {
    fatalError("being written")
  }
}

/// What validation learned about a whole manifest.
public struct ManifestStatistics: Sendable, Hashable {
  /// Number of entries (lines that are transfers).
  public var entries: Int
  /// Sum of the `size` fields given.
  public var knownBytes: Int64
  /// Entries without a `size`.
  public var entriesWithoutSize: Int
  public init(entries: Int, knownBytes: Int64, entriesWithoutSize: Int) {
    self.entries = entries
    self.knownBytes = knownBytes
    self.entriesWithoutSize = entriesWithoutSize
  }
}

/// A bad manifest line (or an unreadable manifest): `MANIFEST:LINE: reason`.
public struct ManifestError: Error, Sendable, Hashable, CustomStringConvertible {
  public var manifest: String
  /// 1-based physical line; 0 when the manifest as a whole cannot be read.
  public var line: Int
  public var reason: String
  public init(manifest: String, line: Int, reason: String) {
    self.manifest = manifest
    self.line = line
    self.reason = reason
  }
  public var description: String {
    line > 0 ? "\(manifest):\(line): \(reason)" : "\(manifest): \(reason)"
  }
}

/// The entries of a validated manifest, parsed lazily as they are pulled.
public struct ManifestEntries: Sequence, Sendable {
  public typealias Element = ManifestEntry
  let manifest: Manifest
  public func makeIterator() -> AnyIterator<ManifestEntry> {
    fatalError("being written")
  }
}
