import Foundation

/// Pulls a manifest's entries one line at a time, parsing each again, and gives each download
/// the digests of the manifest's `checksums`. Opens the file on the first pull. Checks every
/// rule that needs only the line, and the line against the checksum files (a file changed
/// since validation shows up as an error); the upload file and duplicate checks belong to
/// `validate()`.
///
/// Not thread-safe: one consumer pulls.
public final class ManifestEntryIterator: IteratorProtocol {
  private let manifest: Manifest
  private var reader: ManifestLineReader?
  private var finished = false

  init(manifest: Manifest) {
    self.manifest = manifest
  }

  /// The next entry, `nil` at the end; throws when the file cannot be read or a line is bad.
  /// After a throw the iterator is finished.
  public func nextEntry() throws(ManifestError) -> ManifestEntry? {
    guard !finished else { return nil }
    do {
      return try pull()
    } catch {
      finished = true
      reader = nil
      throw error
    }
  }

  /// The next entry; `nil` at the end and also at the first error (see `nextEntry()`).
  public func next() -> ManifestEntry? {
    try? nextEntry()
  }

  private func pull() throws(ManifestError) -> ManifestEntry? {
    if reader == nil {
      guard let opened = ManifestLineReader(path: manifest.path) else {
        throw manifest.error(line: 0, "cannot open: \(String(cString: strerror(errno)))")
      }
      reader = opened
    }
    while let event = reader!.next() {
      switch event {
      case .line(let number, let bytes):
        let parsed: ManifestEntry?
        do {
          parsed = try ManifestLineParser.parse(
            bytes, line: number, schemes: manifest.schemes, recursive: manifest.recursive)
        } catch {
          throw manifest.error(line: number, error.reason)
        }
        guard let entry = parsed else { continue }
        if entry.operation == .download,
          let problem = manifest.checksumProblem(path: entry.path, digests: entry.manifestDigests)
        {
          throw manifest.error(line: number, problem)
        }
        return manifest.applyingChecksums(to: entry)
      case .tooLong(let number):
        throw manifest.error(line: number, Manifest.tooLongReason)
      case .readFailed(let code):
        throw manifest.error(line: 0, "cannot read: \(String(cString: strerror(code)))")
      }
    }
    finished = true
    reader = nil
    return nil
  }
}
