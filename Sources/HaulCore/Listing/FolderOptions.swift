/// How folder entries are expanded (`--depth`; see the contract's Folders).
package struct FolderOptions: Sendable {
  /// The deepest folder listed: 1 is the entry's own folder, 2 adds its subfolders
  /// (`--depth`). A file deeper than this below the folder (in a flat S3 listing) is left out.
  package var depth: Int
  /// What `--depth` is when not given: deep enough for any real tree, a bound all the same.
  package static let defaultDepth = 32

  package init(depth: Int = FolderOptions.defaultDepth) {
    self.depth = max(1, depth)
  }
}

extension SchedulerOptions {
  /// The listers of the run, the first that takes an entry listing it.
  var listers: [any FolderLister] { s3Listing.map { [$0] } ?? [] }
}
