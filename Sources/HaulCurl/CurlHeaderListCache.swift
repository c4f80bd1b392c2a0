internal import CCurl
import HaulCore

/// The request header list of a plain GET, built once per loop and given to every later
/// plain GET that carries the same headers: most of a run's requests, each of which built
/// two strings and a libcurl list of its own.
///
/// The first plain GET's headers are the ones kept; a GET with other headers (a manifest
/// entry's own, a signed S3 request) builds its own list, as before. The list lives as long
/// as the loop, since libcurl reads it while any exchange using it runs.
///
/// Threading: made by one `CurlLoop` on its thread, which owns it: `fields`, read before
/// `list` in each use, is `@LoopBound`. The last exchange to let go of it may be released
/// elsewhere, so `deinit` reads `list` alone.
final class CurlHeaderListCache {
  @LoopBound private var fields: [HTTPField]?
  private var list: UnsafeMutablePointer<curl_slist>?

  /// The kept list when `headers` are the kept ones; `nil` when no list is kept for them.
  func list(for headers: [HTTPField]) -> UnsafeMutablePointer<curl_slist>? {
    guard let fields, fields == headers else { return nil }
    return list
  }

  /// Keeps `list`, built for `headers`, when nothing is kept yet; returns whether the cache
  /// took it (its owner must then not free it).
  func keep(_ list: UnsafeMutablePointer<curl_slist>?, for headers: [HTTPField]) -> Bool {
    guard fields == nil else { return false }
    fields = headers
    self.list = list
    return true
  }

  deinit {
    if let list { curl_slist_free_all(list) }
  }
}

@available(*, unavailable)
extension CurlHeaderListCache: Sendable {}
