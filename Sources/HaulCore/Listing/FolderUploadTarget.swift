import Foundation

/// Where the files of a folder upload go, as `LocalFolderLister` hands them out: the
/// collections of a web or WebDAV server (`WebCollections`, the default), or another store
/// (an object store's keys below a prefix) that a target of its own describes, so that the
/// lister names no store.
package protocol FolderUploadTarget: Sendable {
  /// Whether the folder upload to `url` (the entry's, ending in `/`) goes to this target.
  func receives(_ url: URL) -> Bool
  /// Whether each folder is made (`MKCOL`) before its files are handed out.
  var makesCollections: Bool { get }
  /// The URL of the local file or folder `name` inside the remote `folder` (a folder's
  /// ending in `/`), `nil` when the name makes none.
  func url(of name: String, isFolder: Bool, in folder: URL) -> URL?
  /// How the report and `--failed` name the file sent to `url`.
  func source(of url: URL) -> String
}

/// A web or WebDAV server's collections: a name is one escaped path segment
/// (`ListedName.url`), and each collection is made with `MKCOL` before its files go.
package struct WebCollections: FolderUploadTarget {
  package init() {}

  package func receives(_ url: URL) -> Bool { true }

  package var makesCollections: Bool { true }

  package func url(of name: String, isFolder: Bool, in folder: URL) -> URL? {
    ListedName.url(of: name, isFolder: isFolder, in: folder)
  }

  package func source(of url: URL) -> String { url.absoluteString }
}
