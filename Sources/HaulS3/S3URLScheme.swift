import Foundation
import HaulCore

/// `s3://BUCKET/KEY` in a manifest: an object's URL at the `--s3` endpoint, and a prefix
/// (`s3://BUCKET/DIR/`) as the URL of its first `ListObjectsV2` page
/// (`S3PrefixListing.firstPage`), which the run lists. Without an endpoint (no `--s3`)
/// every `s3://` URL is a bad line that says so.
package struct S3URLScheme: ManifestURLScheme {
  /// Where `s3://` URLs go; `nil` refuses them.
  package let endpoint: S3Endpoint?

  package init(endpoint: S3Endpoint?) {
    self.endpoint = endpoint
  }

  package var scheme: String { "s3" }

  package var folderName: String { "an s3:// prefix" }

  package func url(for string: String, field: String) -> Result<URL, ManifestLineError> {
    guard let endpoint else {
      return .failure(ManifestLineError("\(field) is an s3:// URL, which needs --s3"))
    }
    let mapped = S3ObjectAddress.parse(string).flatMap { address in
      address.isPrefix
        ? S3PrefixListing.firstPage(of: address, at: endpoint) : endpoint.url(for: address)
    }
    return mapped.mapError { ManifestLineError("\(field) \($0.reason)") }
  }

  /// A prefix's first page; also a plain https URL of that query, as before `s3://`
  /// mapped it.
  package func namesFolder(_ url: URL) -> Bool { S3PrefixListing.isFirstPage(url) }

  /// A folder upload to a prefix puts its files below the prefix's own URL (`S3KeyTarget`).
  package func uploadFolderURL(for folder: URL) -> URL? {
    S3PrefixListing.keysURL(of: folder)
  }
}

/// A segmented download of an object on the endpoint asks a `HEAD` for its checksum: S3
/// declares an object's `x-amz-checksum-sha256` on a whole `GET` or a `HEAD`, never on a
/// range.
extension S3Endpoint: HeadDigestSource {
  package func asksHead(for url: URL) -> Bool { serves(url) }
}

/// A large object on the endpoint comes down in `defaultSegments` ranges unless the run
/// gives `--segments`: an object store serves ranges of one object from many disks at once,
/// and the S3 clients users compare against (s5cmd, rclone, the AWS CLI) fetch large
/// objects in parallel ranges by default.
extension S3Endpoint: SegmentDefaults {
  /// The ranges of a large object's download when the run chose none.
  package static let defaultSegments = 8

  package func segments(for url: URL, size: Int64?) -> Int? {
    serves(url) ? Self.defaultSegments : nil
  }
}
