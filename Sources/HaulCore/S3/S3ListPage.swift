/// One page of a `ListObjectsV2` answer, read from its XML: the objects it lists and the
/// token of the next page.
///
/// Read with a small scanner over the few elements haul uses (`Name`, `Contents` with
/// `Key`, `Size`, `ETag`, `IsTruncated`, `NextContinuationToken`, `EncodingType`): a page
/// is at most 1,000 objects, and an XML parser would bring libxml2 for that. Keys are asked
/// for with `encoding-type=url`, so that any key (control characters included) survives the
/// XML; they are percent-decoded here when the answer says `url`.
public struct S3ListPage: Sendable, Hashable {
  /// One listed object.
  public struct Object: Sendable, Hashable {
    public var key: String
    public var size: Int64
    /// The ETag as listed, quotes included (`"9b2c…"`): what `If-Match` sends back.
    public var etag: String?
  }

  /// The bucket's name, as the answer gives it.
  public var bucket: String?
  public var objects: [Object]
  /// The token asking for the next page; `nil` on the last one.
  public var nextToken: String?

  /// Reads `bytes`, a `ListBucketResult` document; `nil` when it is not one or an object in
  /// it lacks a key or a size.
  public static func parse(_ bytes: [UInt8]) -> S3ListPage? {
    let scanner = Scanner.self
    guard scanner.find(Array("<ListBucketResult".utf8), in: bytes[...]) != nil else { return nil }
    let urlEncoded = scanner.element("EncodingType", in: bytes[...]) == "url"
    var objects: [Object] = []
    var rest = bytes[...]
    while let contents = Scanner.element(bytesOf: "Contents", in: rest) {
      rest = rest[contents.endIndex...]
      guard var key = scanner.element("Key", in: contents),
        let size = scanner.element("Size", in: contents).flatMap({ Int64($0) }), size >= 0
      else { return nil }
      if urlEncoded { key = S3URIEncoding.decode(Substring(key)) }
      objects.append(Object(key: key, size: size, etag: scanner.element("ETag", in: contents)))
    }
    let truncated = scanner.element("IsTruncated", in: bytes[...]) == "true"
    let token = scanner.element("NextContinuationToken", in: bytes[...])
    if truncated && (token ?? "").isEmpty { return nil }
    return S3ListPage(
      bucket: scanner.element("Name", in: bytes[...]), objects: objects,
      nextToken: truncated ? token : nil)
  }

  /// Finds elements and reads their text, XML entities decoded.
  private enum Scanner {
    /// The text of the first `<name>…</name>` in `slice`, entities decoded.
    static func element(_ name: String, in slice: ArraySlice<UInt8>) -> String? {
      Self.element(bytesOf: name, in: slice).map { Self.decodeEntities($0) }
    }

    /// The bytes between the first `<name>` and the `</name>` after it, in `slice`.
    static func element(bytesOf name: String, in slice: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
      let open = Array("<\(name)>".utf8)
      guard let start = find(open, in: slice) else { return nil }
      let inner = slice[(start + open.count)...]
      guard let end = find(Array("</\(name)>".utf8), in: inner) else { return nil }
      return inner[..<end]
    }

    static func find(_ needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
      guard let first = needle.first, haystack.count >= needle.count else { return nil }
      var index = haystack.startIndex
      let last = haystack.endIndex - needle.count
      while index <= last {
        if haystack[index] == first, haystack[index..<(index + needle.count)].elementsEqual(needle)
        {
          return index
        }
        index += 1
      }
      return nil
    }

    /// `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;` and numeric references decoded; anything
    /// else kept as written.
    static func decodeEntities(_ bytes: ArraySlice<UInt8>) -> String {
      guard bytes.contains(UInt8(ascii: "&")) else { return String(decoding: bytes, as: UTF8.self) }
      var text = ""
      var rest = Substring(String(decoding: bytes, as: UTF8.self))
      while let amp = rest.firstIndex(of: "&") {
        text += rest[..<amp]
        let tail = rest[amp...]
        guard let semi = tail.firstIndex(of: ";"), tail.distance(from: amp, to: semi) <= 10 else {
          text += "&"
          rest = rest[rest.index(after: amp)...]
          continue
        }
        let name = tail[tail.index(after: amp)..<semi]
        let named: [Substring: String] = [
          "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'",
        ]
        if let value = named[name] {
          text += value
        } else if name.hasPrefix("#x"), let code = UInt32(name.dropFirst(2), radix: 16),
          let scalar = Unicode.Scalar(code)
        {
          text.unicodeScalars.append(scalar)
        } else if name.hasPrefix("#"), let code = UInt32(name.dropFirst()),
          let scalar = Unicode.Scalar(code)
        {
          text.unicodeScalars.append(scalar)
        } else {
          text += tail[amp...semi]
        }
        rest = rest[rest.index(after: semi)...]
      }
      return text + rest
    }
  }
}
