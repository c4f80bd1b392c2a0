/// What `--refresh` knows of a destination that is already in place, to ask its server
/// whether it changed: the ETag recorded with the file when it was downloaded (the extended
/// attribute `user.haul.etag`), its mtime (the server's `Last-Modified` unless the file was
/// downloaded with `--no-remote-time`) and its length.
///
/// A value read once, before the entry waits for a slot; every attempt of the entry sends
/// the same conditions (`fields`), on every redirect hop.
package struct RefreshCheck: Sendable, Hashable {
  /// The name of the extended attribute that keeps a downloaded file's ETag.
  package static let etagAttribute = "user.haul.etag"
  /// The longest ETag recorded or read back; a longer one is not kept.
  package static let maxETagLength = 1024

  /// The ETag recorded with the file, when there is a valid one.
  package var etag: String?
  /// The file's mtime in whole seconds since 1970.
  package var modified: Int
  /// The file's length, counted as done when the server says it is unchanged.
  package var size: Int64

  package init(etag: String?, modified: Int, size: Int64) {
    self.etag = etag.flatMap { Self.isEntityTag($0) ? $0 : nil }
    self.modified = modified
    self.size = size
  }

  /// The conditional request's fields: `If-None-Match` with the recorded ETag (when there
  /// is one) and `If-Modified-Since` with the mtime.
  package var fields: [HTTPField] {
    let since = HTTPField("If-Modified-Since", HTTPDate.imfFixdate(epochSeconds: modified))
    guard let etag else { return [since] }
    return [HTTPField("If-None-Match", etag), since]
  }

  /// Whether `text` is one entity-tag (RFC 9110, section 8.8.3: `"…"` or `W/"…"`, of
  /// visible ASCII but `"`) no longer than `maxETagLength`: only such a value is recorded,
  /// and only such a value read from a file's attribute (anyone may set one) is sent.
  package static func isEntityTag(_ text: String) -> Bool {
    var bytes = Substring(text).utf8[...]
    guard bytes.count >= 2, bytes.count <= maxETagLength else { return false }
    if bytes.starts(with: "W/".utf8) { bytes = bytes.dropFirst(2) }
    guard bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\"")
    else { return false }
    return bytes.dropFirst().dropLast().allSatisfy { $0 == 0x21 || (0x23...0x7E).contains($0) }
  }
}

/// What `--refresh` found for an entry it re-checked, as the report's `refresh` says.
public enum RefreshResult: String, Sendable, Hashable {
  /// The server answered 304: the file in place is current and was kept (`skipped`).
  case unchanged
  /// The server sent the resource: it was downloaded and replaced the file.
  case changed
}
