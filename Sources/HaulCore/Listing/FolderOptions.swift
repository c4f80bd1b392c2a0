/// How folder entries are expanded (`--depth`, `--include`, `--exclude`; docs/manual.md,
/// "Folders").
package struct FolderOptions: Sendable {
  /// The deepest folder listed: 1 is the entry's own folder, 2 adds its subfolders
  /// (`--depth`). A file deeper than this below the folder (in a flat listing, such as an
  /// object store's prefix) is left out.
  package var depth: Int
  /// What `--depth` is when not given: deep enough for any real tree, a bound all the same.
  package static let defaultDepth = 32

  /// Which files are taken (`--include`, `--exclude`), by their path below the folder.
  package var filter: PathFilter

  package init(depth: Int = FolderOptions.defaultDepth, filter: PathFilter = PathFilter()) {
    self.depth = max(1, depth)
    self.filter = filter
  }
}

extension FolderOptions {
  /// Whether a file listed at `path` lies within `depth` and the filter takes it: what the
  /// expansion asks of each listed file.
  package func takes(_ path: String) -> Bool {
    ListingItem.shape(of: path).depth <= depth && filter.takes(path)
  }
}
