import Foundation
import HaulCore

/// Where `s3://` URLs go: an endpoint (scheme, host, port, an optional base path) and the
/// addressing style, which together turn a bucket and key into the https (or http) URL a
/// transport can fetch.
///
/// Keys are encoded with `S3URIEncoding` (every reserved character, `/` kept), so the URL
/// sent is byte for byte the path that is signed.
package struct S3Endpoint: Sendable, Hashable {
  /// The endpoint's scheme, host and port, and its base path without a trailing `/`.
  package let base: URL
  /// Path-style or virtual-hosted.
  package let addressing: S3Addressing

  /// The AWS endpoint of `region`, `https://s3.REGION.amazonaws.com`, virtual-hosted unless
  /// `addressing` says otherwise.
  package static func aws(region: String, addressing: S3Addressing? = nil) -> S3Endpoint {
    S3Endpoint(
      base: URL(string: "https://s3.\(S3URIEncoding.encode(region)).amazonaws.com")!,
      addressing: addressing ?? .virtual)
  }

  /// A custom endpoint (`--s3-endpoint`): an http or https URL with a host and no user info,
  /// query or fragment. Path-style unless `addressing` says otherwise, since self-hosted
  /// stores rarely have a wildcard DNS name.
  package static func custom(_ string: String, addressing: S3Addressing? = nil)
    -> Result<S3Endpoint, S3AddressError>
  {
    guard let url = URL(string: string), let scheme = url.scheme?.lowercased(),
      scheme == "http" || scheme == "https"
    else { return .failure(S3AddressError("is not an http(s) URL")) }
    guard let host = url.host(percentEncoded: true), !host.isEmpty else {
      return .failure(S3AddressError("has no host"))
    }
    guard url.user == nil, url.password == nil, url.query == nil, url.fragment == nil else {
      return .failure(S3AddressError("may not hold user info, a query or a fragment"))
    }
    var components = URLComponents()
    components.scheme = scheme
    components.percentEncodedHost = host.contains(":") ? "[\(host)]" : host.lowercased()
    components.port = url.port
    var path = url.path(percentEncoded: true)
    while path.hasSuffix("/") { path.removeLast() }
    components.percentEncodedPath = path
    guard let base = components.url else { return .failure(S3AddressError("is not a valid URL")) }
    return .success(S3Endpoint(base: base, addressing: addressing ?? .path))
  }

  private init(base: URL, addressing: S3Addressing) {
    self.base = base
    self.addressing = addressing
  }

  /// The URL of `address` with `query` (name, value pairs, encoded here, in this order).
  ///
  /// Virtual-hosted addressing falls back to path style for a bucket that cannot be a host
  /// label (upper case, `_`, a dot over https), as the AWS CLI does. A key with a `.` or
  /// `..` segment is refused: HTTP clients remove such segments before sending, so the
  /// request would name another object than the one signed.
  package func url(for address: S3ObjectAddress, query: [(String, String)] = [])
    -> Result<URL, S3AddressError>
  {
    let segments = address.key.split(separator: "/", omittingEmptySubsequences: false)
    if segments.contains(where: { $0 == "." || $0 == ".." }) {
      return .failure(S3AddressError("has a key with a . or .. segment"))
    }
    let scheme = base.scheme ?? "https"
    var host = base.host(percentEncoded: true) ?? ""
    if host.contains(":") { host = "[\(host)]" }
    var path = base.path(percentEncoded: true)
    let encodedKey = S3URIEncoding.encodePath(address.key)
    if addressing == .virtual, address.isVirtualHostable(overTLS: scheme == "https") {
      host = address.bucket + "." + host
      path += "/" + encodedKey
    } else {
      path += "/" + S3URIEncoding.encode(address.bucket) + "/" + encodedKey
    }
    var text = "\(scheme)://\(host)\(base.port.map { ":\($0)" } ?? "")\(path)"
    if !query.isEmpty {
      text +=
        "?"
        + query.map { "\(S3URIEncoding.encode($0.0))=\(S3URIEncoding.encode($0.1))" }
        .joined(separator: "&")
    }
    guard let url = URL(string: text) else {
      return .failure(S3AddressError("does not make a valid URL"))
    }
    return .success(url)
  }

  /// The bucket and key of `url`, a URL that `url(for:)` made (its query aside); `nil` for a
  /// URL elsewhere or with no bucket.
  package func address(of url: URL) -> S3ObjectAddress? {
    guard serves(url), let host = url.host(percentEncoded: true)?.lowercased(),
      let own = base.host(percentEncoded: true)?.lowercased()
    else { return nil }
    var path = Substring(url.path(percentEncoded: true))
    let basePath = base.path(percentEncoded: true)
    guard path.hasPrefix(basePath + "/") else { return nil }
    path = path.dropFirst(basePath.count + 1)
    var bucket = String(host.dropLast(own.count + 1))
    if host == own {
      let segment = path.prefix { $0 != "/" }
      bucket = S3URIEncoding.decode(segment)
      path = path.dropFirst(segment.count + 1)
    }
    guard !bucket.isEmpty else { return nil }
    return S3ObjectAddress(bucket: bucket, key: S3URIEncoding.decode(path))
  }

  /// Whether `url` goes to this endpoint: its scheme, port and host, or with virtual-hosted
  /// addressing a host one label below it. Only such requests are signed.
  package func serves(_ url: URL) -> Bool {
    guard url.scheme?.lowercased() == base.scheme, url.port == base.port,
      let host = url.host(percentEncoded: true)?.lowercased(),
      let own = base.host(percentEncoded: true)?.lowercased()
    else { return false }
    if host == own { return true }
    guard addressing == .virtual, host.hasSuffix("." + own) else { return false }
    return true
  }
}
