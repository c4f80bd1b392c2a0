internal import CCrypto

/// The destinations seen so far in a manifest, to report the second entry that would write
/// the same file (or send to the same target) on its own line, naming the first.
///
/// Each destination is kept as the first 128 bits of its SHA-256 with the line that claimed
/// it: 16 bytes of key and 4 of line in a `Dictionary`, whose storage is a power of two at
/// most 75% full, so 27–54 bytes per entry (about 42 MB for a million entries) instead of
/// the paths themselves. Two different destinations share a 128-bit prefix with probability
/// about n²/2¹²⁹, nil for any real manifest.
///
/// What a destination is:
/// - a download: its normalized `path` (the file it writes);
/// - a `PUT` upload: its URL (scheme and host in lower case, default port filled in, no user
///   info or fragment), the resource it replaces;
/// - a `POST` upload: its URL and its `path`, since one endpoint commonly receives many
///   files; posting the same file to the same URL twice is the duplicate.
///
/// Not thread-safe; one validation pass owns it.
final class ManifestDestinations {
  private struct Key: Hashable {
    var high: UInt64
    var low: UInt64
  }

  private var lines: [Key: UInt32] = [:]
  private let context: OpaquePointer
  private let sha256: OpaquePointer

  init() {
    guard let context = EVP_MD_CTX_new(), let sha256 = EVP_MD_fetch(nil, "SHA256", nil) else {
      fatalError("OpenSSL could not provide SHA-256")
    }
    self.context = context
    self.sha256 = sha256
  }

  deinit {
    EVP_MD_CTX_free(context)
    EVP_MD_free(sha256)
  }

  /// The identity of `entry`'s destination, as described above.
  static func destination(of entry: ManifestEntry) -> String {
    switch entry.operation {
    case .download: "d:" + entry.path
    case .upload where entry.method == "POST":
      "p:" + ManifestURL.destinationKey(entry.url) + "\u{0}" + entry.path
    case .upload: "u:" + ManifestURL.destinationKey(entry.url)
    }
  }

  /// Records that `line` writes to `destination`; returns the earlier line that already
  /// did, if any (and then keeps the earlier line).
  func insert(_ destination: String, line: Int) -> Int? {
    let key = hash(destination)
    let stored = UInt32(clamping: line)
    if let earlier = lines.updateValue(stored, forKey: key) {
      lines[key] = earlier
      return Int(earlier)
    }
    return nil
  }

  private func hash(_ destination: String) -> Key {
    var text = destination
    var digest = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
    text.withUTF8 { bytes in
      EVP_DigestInit_ex(context, sha256, nil)
      EVP_DigestUpdate(context, bytes.baseAddress, bytes.count)
      withUnsafeMutableBytes(of: &digest) { out in
        _ = EVP_DigestFinal_ex(context, out.baseAddress!.assumingMemoryBound(to: UInt8.self), nil)
      }
    }
    return Key(high: digest.0, low: digest.1)
  }
}
