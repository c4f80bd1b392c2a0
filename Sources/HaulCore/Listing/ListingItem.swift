import Foundation

/// What the feeder gets from a listing: an entry to run, or one that ended before any
/// transfer.
enum ListingItem: Sendable {
  /// An entry to run.
  case entry(ManifestEntry)
  /// An entry that ended before any transfer, with its error: a folder that could not be
  /// listed, or a listed file refused (`path_refused`).
  case ended(ManifestEntry, TransferError)
  /// A listed file found complete in place (`EntryRunner.listedFileInPlace`), skipped
  /// without an entry, a URL or a request.
  case skipped(EntryRunner.Ending)

  /// What `file`, listed for `folderEntry`, becomes; `nil` when it lies deeper than
  /// `folders.depth` or the filter leaves it out. `inPlace` is asked for a download's
  /// normal path, listed size and listed mtime: the length of its file when that is
  /// complete and skipped, else `nil`.
  ///
  /// A single-file entry (its path names a file, not a folder) that a lister takes is the
  /// file the line names: its listed file lies in the folder of the entry's path, neither
  /// `--depth` nor the filter judges it, and it keeps the line (its text, its digests).
  init?(
    _ file: borrowing ListedFile, of folderEntry: borrowing ManifestEntry, folders: FolderOptions,
    inPlace: ((_ path: String, _ size: Int64?, _ listedModified: Int?) -> Int64?)? = nil
  ) {
    var (depth, dotted) = Self.shape(of: file.relativePath)
    let judged = file.listedPath ?? file.relativePath
    if file.listedPath != nil { depth = Self.shape(of: judged).depth }
    let folder = Self.folder(of: folderEntry.path)
    let ownFile = folder.utf8.count < folderEntry.path.utf8.count
    guard ownFile || (depth <= folders.depth && folders.filter.takes(judged)) else {
      return nil
    }
    let wanted = folder.joined(with: file.relativePath)
    let listedModified = file.modified.map { Int($0.timeIntervalSince1970.rounded(.down)) }
    let normalized = ManifestPath.normalize(wanted)
    if !dotted, case .success(let normal) = normalized, let inPlace,
      folderEntry.operation == .download, let urlText = file.urlText,
      let length = inPlace(normal, file.size, listedModified)
    {
      let text =
        ownFile
        ? ManifestLineText(folderEntry.text)
        : ManifestLineText(listedURL: file.source, path: wanted, upload: false, size: file.size)
      let outcome = EntryOutcome(
        line: folderEntry.line, text: text, url: urlText, path: normal,
        operation: .download, status: .skipped, bytes: 0, attempts: 0, seconds: 0,
        sha256: nil, error: nil)
      self = .skipped(
        EntryRunner.Ending(
          outcome: outcome, completedBytes: length, sizeInManifest: file.size != nil))
      return
    }
    let url = file.url
    let text =
      ownFile
      ? folderEntry.text
      : ManifestLineText.listed(
        url: file.source, path: wanted, upload: folderEntry.operation == .upload,
        size: file.size)
    var entry = ManifestEntry(
      line: folderEntry.line, text: text, operation: folderEntry.operation,
      url: url ?? folderEntry.url, path: wanted, method: folderEntry.method,
      size: file.size, headers: folderEntry.headers)
    if ownFile {
      entry.manifestDigests = folderEntry.manifestDigests
      entry.checksumDigests = folderEntry.checksumDigests
    }
    if dotted {
      self = .ended(entry, Self.refusal("has a . or .. segment"))
      return
    }
    switch normalized {
    case .success(let path): entry.path = path
    case .failure(let problem):
      self = .ended(entry, Self.refusal("makes a refused path (\(problem.reason))"))
      return
    }
    guard let url else {
      self = .ended(entry, Self.refusal("makes no valid URL"))
      return
    }
    entry.url = url
    entry.listedModified = listedModified
    entry.listedETag = file.etag ?? file.ifMatch
    if !file.digests.isEmpty {
      entry.listedDigests = file.digests
      entry.digestSeed = file.digestSeed
    }
    if let etag = file.ifMatch, !etag.isEmpty,
      !entry.headers.contains(where: { $0.hasName("If-Match") })
    {
      entry.headers.append(HTTPField("If-Match", etag))
    }
    self = .entry(entry)
  }

  /// How many segments `relativePath` has (`a/b` two, `a/` two), and whether one is `.` or
  /// `..`; read in one pass over the bytes, as every listed file is.
  static func shape(of relativePath: String) -> (depth: Int, dotted: Bool) {
    var text = relativePath  // shares its storage: read in place, not through the UTF-8 view
    return text.withUTF8 { bytes in
      var depth = 1
      var dotted = false
      // The length of the segment read so far, and how many of its bytes are dots.
      var (length, dots) = (0, 0)
      for byte in bytes {
        if byte == UInt8(ascii: "/") {
          if length > 0, length <= 2, dots == length { dotted = true }
          depth += 1
          (length, dots) = (0, 0)
        } else {
          length += 1
          if byte == UInt8(ascii: ".") { dots += 1 }
        }
      }
      if length > 0, length <= 2, dots == length { dotted = true }
      return (depth, dotted)
    }
  }

  /// The folder `path` lies in, ending in `/` (`""`: the output directory): `path` itself
  /// for a folder entry's (`a/b/` or `""`), `a/` for a single file's `a/c.txt`.
  static func folder(of path: String) -> String {
    if path.isEmpty || path.utf8.last == UInt8(ascii: "/") { return path }
    guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
    return String(path[...slash])
  }

  /// The transfer a folder that cannot be listed ends as: its URL, its local folder.
  static func folderEntry(_ folder: ListedFolder, of entry: ManifestEntry) -> ManifestEntry {
    guard !folder.relativePath.isEmpty else { return entry }
    var failed = entry
    failed.url = folder.url
    failed.path = entry.path + folder.relativePath
    var line = JSONObject()
    line.add("url", folder.url.absoluteString)
    line.add("path", failed.path)
    line.add("recursive", true)
    failed.text = line.json
    return failed
  }

  private static func refusal(_ reason: String) -> TransferError {
    TransferError(.pathRefused, "the listed name \(reason)")
  }
}
