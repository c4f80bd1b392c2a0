import HaulCore

/// One page of a `ListObjectsV2` answer, read from its XML: the objects it lists and the
/// token of the next page.
///
/// Read with a small scanner over the few elements haul uses (`Name`, `Contents` with
/// `Key`, `Size`, `ETag`, `IsTruncated`, `NextContinuationToken`, `EncodingType`): a page
/// is at most 1,000 objects, and an XML parser would bring libxml2 for that. Keys are asked
/// for with `encoding-type=url`, so that any key (control characters included) survives the
/// XML; they are decoded here when the answer says `url`, as a form's value is: `+` is a
/// space (S3 and `rclone serve s3` write a space so, and a `+` as `%2B`), then each `%XX`.
package struct S3ListPage: Sendable, Hashable {
  /// One listed object.
  package struct Object: Sendable, Hashable {
    package var key: String
    package var size: Int64
    /// The ETag as listed, quotes included (`"9b2c…"`): what `If-Match` sends back.
    package var etag: String?
  }

  /// The bucket's name, as the answer gives it.
  package var bucket: String?
  package var objects: [Object]
  /// The token asking for the next page; `nil` on the last one.
  package var nextToken: String?

  /// Reads `bytes`, a `ListBucketResult` document; `nil` when it is not one or an object in
  /// it lacks a key or a size.
  package static func parse(_ bytes: [UInt8]) -> S3ListPage? {
    let scanner = S3XML.self
    guard scanner.find(Array("<ListBucketResult".utf8), in: bytes[...]) != nil else { return nil }
    let urlEncoded = scanner.element("EncodingType", in: bytes[...]) == "url"
    var objects: [Object] = []
    var rest = bytes[...]
    while let contents = S3XML.element(bytesOf: "Contents", in: rest) {
      rest = rest[contents.endIndex...]
      guard var key = scanner.element("Key", in: contents),
        let size = scanner.element("Size", in: contents).flatMap({ Int64($0) }), size >= 0
      else { return nil }
      if urlEncoded { key = S3URIEncoding.decode(Substring(key.replacing("+", with: " "))) }
      objects.append(Object(key: key, size: size, etag: scanner.element("ETag", in: contents)))
    }
    let truncated = scanner.element("IsTruncated", in: bytes[...]) == "true"
    let token = scanner.element("NextContinuationToken", in: bytes[...])
    if truncated && (token ?? "").isEmpty { return nil }
    return S3ListPage(
      bucket: scanner.element("Name", in: bytes[...]), objects: objects,
      nextToken: truncated ? token : nil)
  }
}
