import Foundation

/// `s3://BUCKET/DIR/` manifest lines: how a prefix is carried, and how one `ListObjectsV2`
/// page of it becomes entries.
///
/// A prefix entry carries as its URL the first page's request
/// (`…/BUCKET/?list-type=2&prefix=DIR%2F`), so that it travels through the manifest,
/// validation and sharding as any entry does; `S3PrefixExpansion` lists it page by page as
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

  /// What a listed object becomes.
  enum Item: Sendable {
    /// A download.
    case entry(ManifestEntry)
    /// Refused before any transfer (`path_refused`): its key would leave the output
    /// directory or cannot be asked for as it is named.
    case refused(ManifestEntry, TransferError)
  }

  /// The entries of `page`'s objects, listed for `prefixEntry`. A key ending in `/` (a
  /// console's folder marker) is no file and is skipped.
  func items(of page: S3ListPage, for prefixEntry: ManifestEntry) -> [Item] {
    var (base, _) = Self.url(prefixEntry.url)
    if !base.hasSuffix("/") { base += "/" }
    let prefix = Self.prefix(of: prefixEntry.url)
    let bucket = page.bucket ?? ""
    let headers = prefixEntry.headers
    let asksIfMatch = !headers.contains { $0.hasName("If-Match") }
    var items: [Item] = []
    items.reserveCapacity(page.objects.count)
    for object in page.objects where !object.key.hasSuffix("/") {
      let relative =
        object.key.hasPrefix(prefix) ? String(object.key.dropFirst(prefix.count)) : object.key
      let wanted = prefixEntry.path + relative
      var line = JSONObject()
      line.add("url", "s3://\(bucket)/\(object.key)")
      line.add("path", wanted)
      line.add("size", object.size)
      var entry = ManifestEntry(
        line: prefixEntry.line, text: line.json, url: prefixEntry.url, path: wanted,
        size: object.size, headers: headers)
      let segments = object.key.split(separator: "/", omittingEmptySubsequences: false)
      if segments.contains(where: { $0 == "." || $0 == ".." }) {
        items.append(.refused(entry, Self.refusal("has a . or .. segment")))
        continue
      }
      let path: String
      switch ManifestPath.normalize(wanted) {
      case .success(let normal): path = normal
      case .failure(let problem):
        items.append(.refused(entry, Self.refusal("makes a refused path (\(problem.reason))")))
        continue
      }
      guard let url = URL(string: base + S3URIEncoding.encodePath(object.key)) else {
        items.append(.refused(entry, Self.refusal("does not make a valid URL")))
        continue
      }
      entry.url = url
      entry.path = path
      if asksIfMatch, let etag = object.etag, !etag.isEmpty {
        entry.headers.append(HTTPField("If-Match", etag))
      }
      items.append(.entry(entry))
    }
    return items
  }

  private static func refusal(_ reason: String) -> TransferError {
    TransferError(.pathRefused, "the listed key \(reason)")
  }
}
