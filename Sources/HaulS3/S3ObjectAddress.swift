import HaulCore

/// `s3://BUCKET/KEY` taken apart. The key is everything after the bucket's `/`, literally
/// (as the AWS CLI reads it): a `%`, `?` or `#` in it is part of the key, not URL syntax.
package struct S3ObjectAddress: Sendable, Hashable {
  /// The bucket name.
  package var bucket: String
  /// The object key; empty or ending in `/` for a prefix.
  package var key: String

  package init(bucket: String, key: String) {
    self.bucket = bucket
    self.key = key
  }

  /// Whether `string` starts with `s3://` (scheme in any case).
  package static func hasS3Scheme(_ string: String) -> Bool {
    string.utf8.count >= 5 && string.prefix(5).lowercased() == "s3://"
  }

  /// The bucket and key of `string`, an `s3://BUCKET/KEY` URL; why not, when it is not one.
  package static func parse(_ string: String) -> Result<S3ObjectAddress, S3AddressError> {
    guard hasS3Scheme(string) else { return .failure(S3AddressError("is not an s3:// URL")) }
    let rest = string.dropFirst(5)
    guard !rest.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
      return .failure(S3AddressError("contains a control character"))
    }
    let bucket: Substring
    let key: Substring
    if let slash = rest.firstIndex(of: "/") {
      bucket = rest[..<slash]
      key = rest[rest.index(after: slash)...]
    } else {
      bucket = rest
      key = ""
    }
    guard !bucket.isEmpty else { return .failure(S3AddressError("has no bucket")) }
    guard !bucket.contains(where: { $0 == "?" || $0 == "#" || $0 == "@" || $0 == ":" }) else {
      return .failure(S3AddressError("has a bucket name with ?, #, @ or :"))
    }
    return .success(S3ObjectAddress(bucket: String(bucket), key: String(key)))
  }

  /// Whether the key names a prefix (empty, or ending in `/`) rather than one object.
  package var isPrefix: Bool { key.isEmpty || key.hasSuffix("/") }

  /// Whether the bucket can be the first label of a host name: 3 to 63 lower-case letters,
  /// digits, `-` and `.`, starting and ending with a letter or digit, no `..`, not an IPv4
  /// address. A dotted name is one only over plain http (a TLS wildcard certificate covers
  /// one label).
  func isVirtualHostable(overTLS: Bool) -> Bool {
    let bytes = Array(bucket.utf8)
    guard bytes.count >= 3, bytes.count <= 63 else { return false }
    func isLowerOrDigit(_ byte: UInt8) -> Bool {
      (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
        || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }
    guard isLowerOrDigit(bytes.first!), isLowerOrDigit(bytes.last!) else { return false }
    for (index, byte) in bytes.enumerated() {
      if byte == UInt8(ascii: ".") {
        if overTLS || bytes[index - 1] == UInt8(ascii: ".") { return false }
      } else if !isLowerOrDigit(byte) && byte != UInt8(ascii: "-") {
        return false
      }
    }
    let labels = bucket.split(separator: ".")
    if labels.count == 4, labels.allSatisfy({ UInt8($0) != nil }) { return false }
    return true
  }
}

/// Why a string is not a usable `s3://` URL: a phrase that follows the field's name
/// ("\"url\" has no bucket"). It never quotes the URL.
package struct S3AddressError: Error, Sendable, Hashable, CustomStringConvertible {
  package var reason: String
  package init(_ reason: String) { self.reason = reason }
  package var description: String { reason }
}
