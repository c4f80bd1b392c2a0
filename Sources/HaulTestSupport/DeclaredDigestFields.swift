import Foundation
import HaulCore

/// The digest fields the fault server sends on `/data/` when asked with `declare=FORM,...`,
/// so that tests can give a download each form a server uses, right or wrong.
///
/// Forms: `repr-sha-256`, `repr-sha-512` (`Repr-Digest`, of the whole content, also on a
/// 206), `content-sha-256`, `content-sha-512` (`Content-Digest`, of the bytes of this response:
/// on a 206 the part), `digest-sha-256`, `digest-sha-512`, `digest-md5` (RFC 3230 `Digest`,
/// whole content), `goog-md5` (`x-goog-hash`, with a `crc32c` beside it), `amz-sha256`
/// (`x-amz-checksum-sha256`), and `malformed` (one broken field of each kind, which must be
/// ignored). Forms of one field are sent in one field. `wrong` declares the digests of other
/// bytes (content `seed + 1`).
public enum DeclaredDigestFields {
  /// The header fields for `forms`, for content `seed` of `size` bytes of which this response
  /// carries `part` (the whole when it is `0..<size`).
  public static func fields(
    _ forms: [String], seed: UInt64, size: Int64, part: Range<Int64>, wrong: Bool = false
  ) -> [(String, String)] {
    let contentSeed = wrong ? seed &+ 1 : seed
    let whole = digests(seed: contentSeed, range: 0..<size)
    let sent = part == 0..<size ? whole : digests(seed: contentSeed, range: part)
    var repr: [String] = []
    var content: [String] = []
    var rfc3230: [String] = []
    var fields: [(String, String)] = []
    for form in forms {
      switch form {
      case "repr-sha-256": repr.append("sha-256=:\(base64(whole[.sha256]!)):")
      case "repr-sha-512": repr.append("sha-512=:\(base64(whole[.sha512]!)):")
      case "content-sha-256": content.append("sha-256=:\(base64(sent[.sha256]!)):")
      case "content-sha-512": content.append("sha-512=:\(base64(sent[.sha512]!)):")
      case "digest-sha-256": rfc3230.append("SHA-256=\(base64(whole[.sha256]!))")
      case "digest-sha-512": rfc3230.append("SHA-512=\(base64(whole[.sha512]!))")
      case "digest-md5": rfc3230.append("MD5=\(base64(whole[.md5]!))")
      case "goog-md5":
        fields.append(("x-goog-hash", "crc32c=n03x6A=="))
        fields.append(("x-goog-hash", "md5=\(base64(whole[.md5]!))"))
      case "amz-sha256": fields.append(("x-amz-checksum-sha256", base64(whole[.sha256]!)))
      case "malformed":
        fields.append(("Repr-Digest", "sha-256=:\(base64(whole[.sha256]!))"))
        fields.append(("Content-Digest", "sha-512=\(base64(whole[.sha512]!))"))
        fields.append(("Digest", "SHA-256=\(whole[.sha256]!)"))
        fields.append(("x-goog-hash", "md5=???"))
        fields.append(("x-amz-checksum-sha256", base64(whole[.sha256]!) + "-2"))
      default: break
      }
    }
    if !repr.isEmpty { fields.append(("Repr-Digest", repr.joined(separator: ", "))) }
    if !content.isEmpty { fields.append(("Content-Digest", content.joined(separator: ", "))) }
    if !rfc3230.isEmpty { fields.append(("Digest", rfc3230.joined(separator: ", "))) }
    return fields
  }

  /// Every digest haul computes of bytes `range` of content `seed`.
  public static func digests(seed: UInt64, range: Range<Int64>) -> DigestValues {
    let set = DigestSet(DigestAlgorithm.allCases)
    TestContent.forEachChunk(seed: seed, count: Int64(range.count), offset: range.lowerBound) {
      set.update($0)
    }
    return set.finalize()
  }

  /// The base64 of the bytes that lowercase `hex` spells.
  public static func base64(_ hex: String) -> String {
    var bytes: [UInt8] = []
    var pending: UInt8?
    for byte in hex.utf8 {
      let value =
        byte <= UInt8(ascii: "9") ? byte - UInt8(ascii: "0") : byte - UInt8(ascii: "a") + 10
      if let high = pending {
        bytes.append(high << 4 | value)
        pending = nil
      } else {
        pending = value
      }
    }
    return Data(bytes).base64EncodedString()
  }
}
