import Foundation
import HaulCore

/// Where a folder upload to `s3://BUCKET/DIR/` puts its files (`--s3`): each file's path
/// below the local folder becomes the key after the prefix, encoded as S3 signs it
/// (`S3URIEncoding.encodePath`), so that a name with a space, `%`, `#`, `?` or non-ASCII
/// letters is the key it reads as. An object store has no collections: no `MKCOL` is sent.
package struct S3KeyTarget: FolderUploadTarget {
  /// The endpoint whose URLs the target receives.
  package let endpoint: S3Endpoint

  package init(endpoint: S3Endpoint) {
    self.endpoint = endpoint
  }

  package func receives(_ url: URL) -> Bool { endpoint.serves(url) }

  /// None: an object store has no folders, a key's prefix is made with the key.
  package func makeFolder(_ url: URL, through client: ListingClient) async throws(TransferError) {}

  package func url(of name: String, isFolder: Bool, in folder: URL) -> URL? {
    var text = folder.absoluteString
    if !text.hasSuffix("/") { text += "/" }
    return URL(string: text + S3URIEncoding.encode(name) + (isFolder ? "/" : ""))
  }

  package func source(of url: URL) -> String {
    guard let address = endpoint.address(of: url) else { return url.absoluteString }
    return "s3://\(address.bucket)/\(address.key)"
  }
}
