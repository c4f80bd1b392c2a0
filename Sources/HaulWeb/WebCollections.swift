import Foundation
import HaulCore

/// A web or WebDAV server's collections: a name is one escaped path segment
/// (`ListedName.url`), and each collection is made with `MKCOL` before its files go.
/// `MKCOL` answered `405` (the collection exists, or the server takes no `MKCOL`), `501`,
/// `403` or `409` goes on: servers that create folders on `PUT` (nginx
/// `create_full_put_path`) need none.
package struct WebCollections: FolderUploadTarget {
  /// The statuses of a `MKCOL` that let the folder's files go on.
  static let collectionAnswers: Set<Int> = [403, 405, 409, 501]

  package init() {}

  package func receives(_ url: URL) -> Bool { true }

  package func makeFolder(_ url: URL, through client: ListingClient) async throws(TransferError) {
    _ = try await client.fetch(url, method: "MKCOL", handles: Self.collectionAnswers)
  }

  package func url(of name: String, isFolder: Bool, in folder: URL) -> URL? {
    ListedName.url(of: name, isFolder: isFolder, in: folder)
  }

  package func source(of url: URL) -> String { url.absoluteString }
}
