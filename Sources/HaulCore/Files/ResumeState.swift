import Foundation

/// What a partial file needs beside it to be resumed safely: which entry it belongs to and
/// the validator of the server's version it holds a prefix of.
///
/// It never records how many bytes were written: the partial file's own length is the
/// offset, so no crash can leave state that points past the bytes really on disk. The file
/// holds one JSON line and the SHA-256 of that line; a state whose digest does not match
/// (torn, truncated, edited) is discarded and the entry starts over.
package struct ResumeState: Codable, Sendable, Hashable {
  /// The entry's first source URL, without userinfo.
  package var url: String
  /// The entry's expected digest and size, as the manifest gave them.
  package var sha256: String?
  package var size: Int64?
  /// The validator (strong ETag or Last-Modified) of the version the partial holds.
  package var validator: String?
  /// The resource's full length, when the server said.
  package var total: Int64?
  /// For a segmented download: each segment's range and how far it got (`--segments`).
  package var segments: [SegmentProgress]?
  /// The digests of the whole file the server declared in the response the partial began
  /// with, checked at the end of a resume whose validator still matches (its `206` may
  /// declare fewer: a `Content-Digest` covers only the part). Absent in states written
  /// before haul read server digests, which then resume without them.
  package var server: [ExpectedDigest]?
  /// The ETag the folder listing gave the file when the partial began
  /// (`ManifestEntry.listedETag`): a listing that names another one names another version.
  package var listedETag: String?

  /// The state a new partial of `entry` begins with: no validator yet.
  package init(for entry: ManifestEntry) {
    self.init(
      url: RedactedURL.string(entry.url), sha256: entry.sha256, size: entry.size,
      validator: nil, total: nil, listedETag: entry.listedETag)
  }

  package init(
    url: String, sha256: String?, size: Int64?, validator: String?, total: Int64?,
    segments: [SegmentProgress]? = nil, server: [ExpectedDigest]? = nil,
    listedETag: String? = nil
  ) {
    self.url = url
    self.sha256 = sha256
    self.size = size
    self.validator = validator
    self.total = total
    self.segments = segments
    self.server = server
    self.listedETag = listedETag
  }

  /// The state file's bytes.
  package func encoded() -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let json = (try? encoder.encode(self)) ?? Data()
    let line = Array(json)
    return line + [0x0A] + Array(SHA256.hex(of: line).utf8) + [0x0A]
  }

  /// Decodes a state file's bytes; `nil` when they are damaged in any way.
  package static func decode(_ bytes: [UInt8]) -> ResumeState? {
    let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
    guard lines.count == 3, lines[2].isEmpty,
      String(decoding: lines[1], as: UTF8.self) == SHA256.hex(of: lines[0])
    else { return nil }
    return try? JSONDecoder().decode(ResumeState.self, from: Data(lines[0]))
  }

  /// Whether a partial described by this state may continue `entry`: the same source,
  /// expected digest and size, and, for a listed file, the ETag its listing gives now.
  /// The `If-Range` a resume sends guards it against a server that changed the file; the
  /// listed ETag also guards it where the answer's validator cannot tell the versions apart
  /// (a `Last-Modified` in whole seconds, a server that ignores `If-Range`).
  package func belongs(to entry: ManifestEntry) -> Bool {
    url == RedactedURL.string(entry.url) && sha256 == entry.sha256 && size == entry.size
      && listedETag == entry.listedETag
  }
}

/// One segment of a segmented download, as the resume state records it.
///
/// `next` is where the segment's next byte goes. It is saved only after the bytes before it
/// were written (and, with `--fsync`, synced), so it never points past what is on disk.
package struct SegmentProgress: Codable, Sendable, Hashable {
  /// First byte of the segment.
  package var start: Int64
  /// Last byte of the segment (inclusive).
  package var end: Int64
  /// The next byte to fetch; `end + 1` when the segment is complete.
  package var next: Int64

  package init(start: Int64, end: Int64, next: Int64) {
    self.start = start
    self.end = end
    self.next = next
  }

  package var isComplete: Bool { next > end }

  /// Splits `total` bytes into `count` segments of nearly equal length.
  package static func plan(total: Int64, count: Int) -> [SegmentProgress] {
    let count = Int64(max(1, min(Int64(count), total)))
    let length = total / count
    return (0..<count).map { index in
      let start = index * length
      let end = index == count - 1 ? total - 1 : start + length - 1
      return SegmentProgress(start: start, end: end, next: start)
    }
  }
}
