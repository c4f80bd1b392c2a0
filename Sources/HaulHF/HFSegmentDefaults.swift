import Foundation
import HaulCore

/// A large file of the Hub comes down in ranges unless the run gives `--segments`
/// (`HFEndpoint.defaultSegments`), as `hf_transfer` and `aria2c -x16` fetch one: the Hub's
/// storage host (a CDN) serves each connection at a rate of its own, far below what a
/// host's link takes, so one stream per file leaves a model's largest file the whole run's
/// tail. Any other server's downloads go as `others` (an `--s3` endpoint's own default)
/// says.
package struct HFSegmentDefaults: SegmentDefaults {
  /// The Hub whose `resolve` URLs go in ranges.
  package let endpoint: HFEndpoint
  /// The defaults of every other server; `nil`: `--segments`.
  package let others: (any SegmentDefaults)?

  package init(endpoint: HFEndpoint, others: (any SegmentDefaults)?) {
    self.endpoint = endpoint
    self.others = others
  }

  package func segments(for url: URL, size: Int64?) -> Int? {
    endpoint.isResolveURL(url)
      ? HFEndpoint.defaultSegments(size: size) : others?.segments(for: url, size: size)
  }
}

extension HFEndpoint {
  /// The ranges a file takes at least: as many as the Hub's origin may have in flight by
  /// default (`HFHostLimits.perHost`), so that a model's one large file alone holds every
  /// connection it may.
  package static let minimumSegments = HFHostLimits.perHost
  /// The length of a range once a file has more than `minimumSegments` of it: a range
  /// costs a `resolve` request through the Hub and one to the storage host, about a second
  /// of transfer at a CDN connection's rate.
  package static let segmentLength: Int64 = 64 << 20
  /// The most ranges a file takes (`--segments`' own limit).
  package static let maximumSegments = 64

  /// The ranges a file of `size` bytes (`nil`: not known yet) comes down in when the run
  /// gives no `--segments`: `minimumSegments`, and for a file above 1 GiB one a
  /// `segmentLength`, up to `maximumSegments`. With more ranges than run at once, they end
  /// in the file's order, so its SHA-256 (read in order as the ranges extend the file)
  /// keeps up with the transfer instead of reading most of the file after its last byte.
  package static func defaultSegments(size: Int64?) -> Int {
    guard let size else { return minimumSegments }
    return Int(min(Int64(maximumSegments), max(Int64(minimumSegments), size / segmentLength)))
  }

  /// Whether `url` is a file's `resolve` URL on this Hub
  /// (`BASE/[datasets/|spaces/]ORG/NAME/resolve/REVISION/PATH`).
  package func isResolveURL(_ url: URL) -> Bool {
    let text = url.absoluteString
    // Asked for every download of the run: the common answer, another server, comes first
    // and without building a string.
    guard text.hasPrefix(base), text.utf8.dropFirst(base.utf8.count).first == UInt8(ascii: "/")
    else { return false }
    var segments = text.dropFirst(base.count + 1).split(
      separator: "/", maxSplits: 5, omittingEmptySubsequences: false)
    if let first = segments.first, HFRepoKind(urlSegment: first) != nil {
      segments.removeFirst()
    }
    return segments.count >= 5 && segments[2] == "resolve" && !segments[0].isEmpty
      && !segments[1].isEmpty && !segments[3].isEmpty && !segments[4].isEmpty
  }
}
