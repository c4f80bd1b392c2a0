/// The digests a server declares for the file it sends, read from a response's header fields;
/// a pure parser: no field is ever an error.
///
/// Fields read, in this order (each result's `source` names its field and algorithm):
/// - `Repr-Digest` (RFC 9530): a Structured Field Dictionary, `sha-256=:BASE64:` and
///   `sha-512=:BASE64:`. It covers the whole representation, so it counts on a 206 too.
/// - `Content-Digest` (RFC 9530), same form: it covers the message content only, so it counts
///   only on a full response (not a 206, whose content is one part) without a
///   `Content-Encoding` (whose content is not the file's bytes as the representation has them).
/// - `Digest` (RFC 3230): `SHA-256=BASE64`, `SHA-512=`, `SHA=` (SHA-1), `MD5=`, names in any
///   case. An instance digest covers the whole file, on a 206 too.
/// - `x-goog-hash` (Google Cloud Storage): `md5=BASE64` (its `crc32c` is not a digest haul
///   computes). Usually sent as two fields, one per hash; every one is read.
/// - `x-amz-checksum-sha256` (Amazon's object storage and its peers): the BASE64 SHA-256 of
///   the object. The checksum of a multipart upload's parts (`BASE64-N`) is not the file's
///   and does not parse.
///
/// Several fields of one name are read as one list, as HTTP combines them. Unknown algorithms,
/// values that are not base64 or not the algorithm's length, and fields that do not parse are
/// ignored. Within one field, a structured dictionary keeps the last value of a key (RFC 8941);
/// the plain lists (`Digest`, `x-goog-hash`) keep the first.
/// Responses other than 2xx declare nothing (their body is not the file).
package enum ServerDigests {
  /// The request field that asks for `Repr-Digest` (RFC 9530 §4): SHA-256 preferred, SHA-512
  /// welcome.
  package static let wantReprDigest = HTTPField("Want-Repr-Digest", "sha-256=9, sha-512=5")

  /// Every digest `head` declares for the file, in the order of the list above.
  ///
  /// A response that declares none (the common case) costs one pass over its fields and
  /// allocates nothing.
  package static func declared(by head: ResponseHead) -> [ExpectedDigest] {
    guard (200..<300).contains(head.status),
      head.headers.contains(where: isDigestField)
    else { return [] }
    var found: [ExpectedDigest] = []
    structured(head, field: "Repr-Digest", label: "repr-digest", into: &found)
    if head.status != 206, !hasContentCoding(head) {
      structured(head, field: "Content-Digest", label: "content-digest", into: &found)
    }
    list(head, field: "Digest", label: "digest", algorithms: rfc3230Algorithms, into: &found)
    list(head, field: "x-goog-hash", label: "x-goog-hash", algorithms: ["md5": .md5], into: &found)
    if let value = combined(head, "x-amz-checksum-sha256"),
      let digest = digest(base64: value.trimmingASCIIWhitespace(), as: .sha256)
    {
      found.append(
        ExpectedDigest(algorithm: .sha256, hex: digest, source: "server:x-amz-checksum-sha256"))
    }
    return found
  }

  /// Whether `field` is one of those `declared(by:)` reads. Its name's length picks the
  /// candidates, so the fields of a response without digests cost a length each.
  private static func isDigestField(_ field: HTTPField) -> Bool {
    switch field.name.utf8.count {
    case 6: field.hasName("Digest")
    case 11: field.hasName("Repr-Digest") || field.hasName("x-goog-hash")
    case 14: field.hasName("Content-Digest")
    case 21: field.hasName("x-amz-checksum-sha256")
    default: false
    }
  }

  /// RFC 9530's algorithm keys that haul computes (`md5`, `sha`, and the others are
  /// deprecated or insecure there, and ignored).
  private static let rfc9530Algorithms: [(key: String, algorithm: DigestAlgorithm)] = [
    ("sha-256", .sha256), ("sha-512", .sha512),
  ]

  /// RFC 3230's algorithm names (IANA's registry; compared in lower case).
  private static let rfc3230Algorithms: [String: DigestAlgorithm] = [
    "sha-256": .sha256, "sha-512": .sha512, "sha": .sha1, "md5": .md5,
  ]

  private static func structured(
    _ head: ResponseHead, field: String, label: String, into found: inout [ExpectedDigest]
  ) {
    guard let value = combined(head, field),
      let members = StructuredFieldDictionary.byteSequences(in: value)
    else { return }
    for (key, algorithm) in rfc9530Algorithms {
      guard let bytes = members[key], bytes.count == algorithm.byteCount else { continue }
      found.append(
        ExpectedDigest(
          algorithm: algorithm, hex: Hex.encode(bytes), source: "server:\(label):\(key)"))
    }
  }

  /// Reads a comma-separated list of `name=BASE64`, the form of RFC 3230's `Digest` and of
  /// `x-goog-hash`.
  private static func list(
    _ head: ResponseHead, field: String, label: String, algorithms: [String: DigestAlgorithm],
    into found: inout [ExpectedDigest]
  ) {
    guard let value = combined(head, field) else { return }
    var seen = Set<DigestAlgorithm>()
    for item in value.split(separator: ",") {
      guard let equals = item.firstIndex(of: "=") else { continue }
      let name = String(item[..<equals]).trimmingASCIIWhitespace().lowercased()
      guard let algorithm = algorithms[name], !seen.contains(algorithm),
        let digest = digest(
          base64: String(item[item.index(after: equals)...]).trimmingASCIIWhitespace(),
          as: algorithm)
      else { continue }
      seen.insert(algorithm)
      found.append(
        ExpectedDigest(algorithm: algorithm, hex: digest, source: "server:\(label):\(name)"))
    }
  }

  /// The lowercase hex of `base64`, when it decodes to a digest of `algorithm`'s length.
  private static func digest(base64: String, as algorithm: DigestAlgorithm) -> String? {
    guard let bytes = Base64.decode(base64.utf8), bytes.count == algorithm.byteCount else {
      return nil
    }
    return Hex.encode(bytes)
  }

  /// Every field named `name`, joined with `, ` as HTTP combines repeated fields; `nil` when
  /// there is none.
  private static func combined(_ head: ResponseHead, _ name: String) -> String? {
    let values = head.headers.lazy.filter { $0.hasName(name) }.map(\.value)
    guard let first = values.first else { return nil }
    let all = Array(values)
    return all.count == 1 ? first : all.joined(separator: ", ")
  }

  /// Whether the content is coded (`Content-Encoding` other than `identity`).
  private static func hasContentCoding(_ head: ResponseHead) -> Bool {
    guard let coding = combined(head, "Content-Encoding") else { return false }
    return coding.split(separator: ",").contains {
      let name = String($0).trimmingASCIIWhitespace().lowercased()
      return !name.isEmpty && name != "identity"
    }
  }
}
