import Foundation

/// What the feeder gets from a listing: an entry to run, or one that ended before any
/// transfer.
enum ListingItem: Sendable {
  /// An entry to run.
  case entry(ManifestEntry)
  /// An entry that ended before any transfer, with its error: a folder that could not be
  /// listed, or a listed file refused (`path_refused`).
  case ended(ManifestEntry, TransferError)

  /// What `file`, listed for `folderEntry`, becomes; `nil` when it lies deeper than
  /// `folders.depth` or the filter leaves it out.
  init?(_ file: ListedFile, of folderEntry: ManifestEntry, folders: FolderOptions) {
    let segments = file.relativePath.split(separator: "/", omittingEmptySubsequences: false)
    guard segments.count <= folders.depth, folders.filter.takes(file.relativePath) else {
      return nil
    }
    let wanted = folderEntry.path + file.relativePath
    var line = JSONObject()
    line.add("url", file.source)
    line.add("path", wanted)
    if folderEntry.operation == .upload { line.add("op", "upload") }
    if let size = file.size { line.add("size", size) }
    var entry = ManifestEntry(
      line: folderEntry.line, text: line.json, operation: folderEntry.operation,
      url: file.url ?? folderEntry.url, path: wanted, method: folderEntry.method,
      size: file.size, headers: folderEntry.headers)
    if segments.contains(where: { $0 == "." || $0 == ".." }) {
      self = .ended(entry, Self.refusal("has a . or .. segment"))
      return
    }
    switch ManifestPath.normalize(wanted) {
    case .success(let path): entry.path = path
    case .failure(let problem):
      self = .ended(entry, Self.refusal("makes a refused path (\(problem.reason))"))
      return
    }
    guard let url = file.url else {
      self = .ended(entry, Self.refusal("makes no valid URL"))
      return
    }
    entry.url = url
    entry.listedModified = file.modified.map { Int($0.timeIntervalSince1970.rounded(.down)) }
    entry.listedETag = file.etag ?? file.ifMatch
    if let etag = file.ifMatch, !etag.isEmpty,
      !entry.headers.contains(where: { $0.hasName("If-Match") })
    {
      entry.headers.append(HTTPField("If-Match", etag))
    }
    self = .entry(entry)
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
