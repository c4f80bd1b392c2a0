import Foundation

/// Where the files of a folder upload go, as `LocalFolderLister` hands them out: the
/// collections of a web or WebDAV server, or an object store's keys below a prefix, each
/// described by the protocol's own target, so that the lister names no store.
package protocol FolderUploadTarget: Sendable {
  /// Whether the folder upload to `url` (the entry's, ending in `/`) goes to this target.
  func receives(_ url: URL) -> Bool
  /// Makes the remote folder `url` (ending in `/`) before its files are handed out (a web
  /// server's collection); a store without folders makes none. Throws what fails the folder.
  func makeFolder(_ url: URL, through client: ListingClient) async throws(TransferError)
  /// The URL of the local file or folder `name` inside the remote `folder` (a folder's
  /// ending in `/`), `nil` when the name makes none.
  func url(of name: String, isFolder: Bool, in folder: URL) -> URL?
  /// How the report and `--failed` name the file sent to `url`.
  func source(of url: URL) -> String
}
