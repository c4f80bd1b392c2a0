import Foundation
import HaulCore

/// The canonical request of AWS Signature Version 4, built the way S3 checks it: the method,
/// the URL's path exactly as sent (S3 neither normalizes nor encodes it again), the query
/// parameters re-encoded strictly and sorted, the signed headers in canonical form, and the
/// payload's hash.
///
/// - SeeAlso: "Create a canonical request for Signature Version 4" in the AWS IAM guide.
package struct SigV4CanonicalRequest: Sendable {
  /// Header names never signed: hop-by-hop fields a proxy may drop or rewrite, and the ones
  /// HTTP clients set on their own (the same list as botocore's). Lower case.
  package static let unsignedHeaderNames: Set<String> = [
    "authorization", "connection", "expect", "keep-alive", "proxy-authenticate",
    "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade", "user-agent",
    "x-amzn-trace-id",
  ]

  /// The full text whose SHA-256 goes into the string to sign.
  package let text: String
  /// The lower-case names of the signed headers, sorted and joined with `;`.
  package let signedHeaders: String

  /// The canonical request for `method` to `url` with `headers` (`Host` is added from the
  /// URL when absent) and `payloadHash` (hex SHA-256 or `UNSIGNED-PAYLOAD`).
  package init(method: String, url: URL, headers: [HTTPField], payloadHash: String) {
    var path = url.path(percentEncoded: true)
    if path.isEmpty { path = "/" }
    let query = Self.canonicalQuery(url.query(percentEncoded: true))
    var fields: [String: [String]] = [:]
    var order: [String] = []
    for field in headers {
      let name = Self.lowercased(field.name)
      guard !Self.unsignedHeaderNames.contains(name) else { continue }
      if fields[name] == nil { order.append(name) }
      fields[name, default: []].append(Self.trimmed(field.value))
    }
    if fields["host"] == nil {
      order.append("host")
      fields["host"] = [Self.host(of: url)]
    }
    let names = order.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    let canonicalHeaders = names.map { "\($0):\(fields[$0]!.joined(separator: ","))\n" }.joined()
    signedHeaders = names.joined(separator: ";")
    text = [method.uppercased(), path, query, canonicalHeaders, signedHeaders, payloadHash]
      .joined(separator: "\n")
  }

  /// `Host` as HTTP clients send it: the host in lower case (an IPv6 literal in brackets),
  /// and the port only when it is not the scheme's default.
  package static func host(of url: URL) -> String {
    var host = (url.host(percentEncoded: true) ?? "").lowercased()
    if host.contains(":") { host = "[\(host)]" }
    let scheme = url.scheme?.lowercased()
    if let port = url.port,
      !(scheme == "https" && port == 443) && !(scheme == "http" && port == 80)
    {
      host += ":\(port)"
    }
    return host
  }

  /// The query's `name=value` pairs, each side decoded and encoded again strictly, sorted by
  /// name and then value (byte order); a parameter without `=` has an empty value.
  static func canonicalQuery(_ query: String?) -> String {
    guard let query, !query.isEmpty else { return "" }
    let pairs = query.split(separator: "&", omittingEmptySubsequences: true).map {
      pair -> (String, String) in
      let name: Substring
      let value: Substring
      if let equals = pair.firstIndex(of: "=") {
        name = pair[..<equals]
        value = pair[pair.index(after: equals)...]
      } else {
        name = pair
        value = ""
      }
      return (
        S3URIEncoding.encode(S3URIEncoding.decode(name)),
        S3URIEncoding.encode(S3URIEncoding.decode(value))
      )
    }
    return pairs.sorted { left, right in
      left.0 == right.0
        ? Array(left.1.utf8).lexicographicallyPrecedes(Array(right.1.utf8))
        : Array(left.0.utf8).lexicographicallyPrecedes(Array(right.0.utf8))
    }
    .map { "\($0.0)=\($0.1)" }.joined(separator: "&")
  }

  /// A header value with the spaces and tabs around it removed and each run inside folded to
  /// one space (SigV4's `Trimall`).
  static func trimmed(_ value: String) -> String {
    value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
  }

  /// `name` with ASCII letters in lower case (header names are ASCII tokens).
  static func lowercased(_ name: String) -> String {
    String(
      decoding: name.utf8.map(\.asciiLowercased), as: UTF8.self)
  }
}
