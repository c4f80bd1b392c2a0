import Foundation
import HaulCore

/// `s3://BUCKET/DIR/` manifest lines: how a prefix is carried, and how one `ListObjectsV2`
/// page of it becomes files; the lister of S3 prefixes.
///
/// A prefix entry carries as its URL the first page's request
/// (`…/BUCKET/?list-type=2&prefix=DIR%2F`), so that it travels through the manifest,
/// validation and sharding as any entry does; `ListingExpansion` lists it page by page as
/// the scheduler's feeder reaches it. Each object listed becomes a download of its own:
/// the entry's `path` (a folder, `dir/`) plus the key after the prefix, with the listed size
/// as its expected size and the listed ETag sent as `If-Match`, so that an object replaced
/// after it was listed fails with `http_412` instead of mixing two versions.
package struct S3PrefixListing: Sendable, Hashable {
  /// Keys per page (`max-keys`, 1 to 1,000; S3 gives at most 1,000).
  package var pageSize: Int

  /// S3's own page size, the default.
  package static let defaultPageSize = 1000

  package init(pageSize: Int = S3PrefixListing.defaultPageSize) {
    self.pageSize = min(max(pageSize, 1), 1000)
  }

  /// The first page's URL for the prefix `address` (a key that is empty or ends in `/`):
  /// the bucket's URL without a trailing `/` on a path-style bucket (`…/BUCKET?list-type…`),
  /// as the AWS SDKs send it (moto signs the path it receives, and `/BUCKET/` is not it).
  static func firstPage(of address: S3ObjectAddress, at endpoint: S3Endpoint)
    -> Result<URL, S3AddressError>
  {
    endpoint.url(
      for: S3ObjectAddress(bucket: address.bucket, key: ""),
      query: [("list-type", "2"), ("prefix", address.key)]
    ).flatMap { url in
      var text = url.absoluteString
      guard let mark = text.firstIndex(of: "?") else { return .success(url) }
      let slash = text.index(before: mark)
      if text[slash] == "/", url.path(percentEncoded: true) != "/" { text.remove(at: slash) }
      return URL(string: text).map { .success($0) }
        ?? .failure(S3AddressError("does not make a valid URL"))
    }
  }

  private static let firstPageQuery = "list-type=2&prefix="

  /// Whether `url` is a prefix entry's URL (only `firstPage` makes such a query: an object
  /// key's `?` is always percent-encoded).
  package static func isFirstPage(_ url: URL) -> Bool {
    url.query(percentEncoded: true)?.hasPrefix(firstPageQuery) ?? false
  }

  /// The prefix a first page's URL lists.
  static func prefix(of first: URL) -> String {
    let query = url(first).query ?? ""
    return S3URIEncoding.decode(query.dropFirst(firstPageQuery.count).prefix { $0 != "&" })
  }

  /// The URL of the prefix a first page lists (`…/BUCKET/DIR/`), below which its keys'
  /// URLs lie.
  static func keysURL(of first: URL) -> URL? {
    URL(string: bucketURL(of: first) + S3URIEncoding.encodePath(prefix(of: first)))
  }

  /// The bucket's URL of a first page, ending in `/`, to which an encoded key is appended.
  private static func bucketURL(of first: URL) -> String {
    var (base, _) = url(first)
    if !base.hasSuffix("/") { base += "/" }
    return base
  }

  /// The URL and query of `url`, as sent.
  private static func url(_ url: URL) -> (base: String, query: String?) {
    let text = url.absoluteString
    guard let mark = text.firstIndex(of: "?") else { return (text, nil) }
    return (String(text[..<mark]), String(text[text.index(after: mark)...]))
  }

  /// The request of the page after `token` (the first page without one).
  func page(_ first: URL, after token: String?) -> URL {
    var text = first.absoluteString + "&max-keys=\(pageSize)&encoding-type=url"
    if let token { text += "&continuation-token=" + S3URIEncoding.encode(token) }
    return URL(string: text)!
  }

  /// The files of `page`, listed for the prefix `folder` (the entry's own: an S3 listing
  /// is flat). A key ending in `/` (a console's folder marker) is no file and is skipped.
  func files(of page: S3ListPage, in folder: ListedFolder) -> [ListedFile] {
    let base = Self.bucketURL(of: folder.url)
    let prefix = Self.prefix(of: folder.url)
    let bucket = page.bucket ?? ""
    var files: [ListedFile] = []
    files.reserveCapacity(page.objects.count)
    for object in page.objects where !object.key.hasSuffix("/") {
      let relative =
        object.key.hasPrefix(prefix) ? String(object.key.dropFirst(prefix.count)) : object.key
      files.append(
        ListedFile(
          url: URL(string: base + S3URIEncoding.encodePath(object.key)),
          source: "s3://\(bucket)/\(object.key)", relativePath: relative, size: object.size,
          ifMatch: object.etag))
    }
    return files
  }
}

extension S3PrefixListing: FolderLister {
  package func lists(_ entry: ManifestEntry) -> Bool { Self.isFirstPage(entry.url) }

  package func page(of folder: ListedFolder, after cursor: String?, through client: ListingClient)
    async throws(TransferError) -> ListingPage
  {
    let answer = try await client.fetch(page(folder.url, after: cursor))
    guard let page = S3ListPage.parse(answer.body) else {
      throw TransferError(.protocol, "the listing of the prefix is not a ListObjectsV2 page")
    }
    return ListingPage(files: files(of: page, in: folder), next: page.nextToken)
  }
}
