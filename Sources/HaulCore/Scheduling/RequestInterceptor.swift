/// Changes requests before they are sent and decides what a 401 means: the middleware hook
/// of the networking guides (Alamofire's `RequestInterceptor`), for credentials that expire.
///
/// Headers an interceptor adds are the transfer's own: they go to the entry's own origin
/// only, never across a redirect to another origin, and are never printed.
public protocol RequestInterceptor: Sendable {
  /// Adapts `request` for an attempt of `entry` (adds a credential, say). Throwing fails the
  /// attempt with that error (use `auth` for credential trouble).
  func adapt(_ request: inout TransferRequest, for entry: ManifestEntry) async throws(TransferError)

  /// The server answered `request` with 401. Return `true` to send the attempt again at once
  /// without using up a retry (after refreshing a credential); `false` to let the 401 stand.
  /// haul asks at most once per attempt: a second 401 fails the attempt with `http_401`.
  func retry(after request: TransferRequest, for entry: ManifestEntry) async throws(TransferError)
    -> Bool
}

/// An interceptor whose adaptation needs no waiting and which never asks to resend a 401
/// (a request signer, say): a transport's engine applies it on its own thread, so entries it
/// adapts keep the fast path.
package protocol ImmediateRequestInterceptor: RequestInterceptor {
  /// Adapts `request` as `adapt` does, at once.
  func adaptNow(_ request: inout TransferRequest, for entry: ManifestEntry) throws(TransferError)
}
