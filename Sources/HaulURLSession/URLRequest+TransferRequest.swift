import Foundation
import HaulCore

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension URLRequest {
  /// The `URLRequest` that performs `request` on swift-corelibs-foundation's URLSession.
  ///
  /// - The caller's headers go in first (a repeated name is joined with `, `: `URLRequest`
  ///   keeps one value per name), then `Range` and `If-Range` from the request's fields.
  /// - `Accept-Encoding: identity` unless the caller set one: corelibs always turns on
  ///   libcurl's `CURLOPT_ACCEPT_ENCODING ""` (advertise and decode every encoding), and a
  ///   request header of the same name is what libcurl sends instead of its own.
  /// - A POST body is `application/octet-stream` unless the caller set a type, as the curl
  ///   transport sends it.
  /// - `timeoutInterval` is the stall timeout, rounded up to whole seconds: corelibs arms an
  ///   idle timer of `Int(timeoutInterval) * 1000` ms that every libcurl callback restarts,
  ///   so a fraction would be dropped and anything under one second would fire at once.
  ///
  /// - SeeAlso: `EasyHandle.set(automaticBodyDecompression:)` and
  ///   `_HTTPURLProtocol.configureEasyHandle(for:body:)` in swift-corelibs-foundation.
  init(transfer request: TransferRequest) {
    self.init(url: request.url, cachePolicy: .reloadIgnoringLocalCacheData)
    timeoutInterval = Self.idleTimeout(seconds: request.stallTimeout)
    httpMethod = request.method
    for field in request.headers {
      addValue(field.value, forHTTPHeaderField: field.name)
    }
    if let range = request.range {
      setValue(range.headerValue, forHTTPHeaderField: "Range")
    }
    if let ifRange = request.ifRange {
      setValue(ifRange, forHTTPHeaderField: "If-Range")
    }
    if request.body != nil, request.method.uppercased() == "POST",
      value(forHTTPHeaderField: "Content-Type") == nil
    {
      setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
    }
    if value(forHTTPHeaderField: "Accept-Encoding") == nil {
      setValue("identity", forHTTPHeaderField: "Accept-Encoding")
    }
  }

  /// Whole seconds, at least 1 and at most about 24 days (corelibs multiplies by 1000 into
  /// an `Int` of milliseconds and hands it to a Dispatch timer).
  static func idleTimeout(seconds: Double) -> TimeInterval {
    let longest: Double = 2_000_000
    guard seconds.isFinite else { return longest }
    return min(max(1, seconds.rounded(.up)), longest)
  }
}
