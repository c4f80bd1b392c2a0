import HaulCore

/// Sends the Hub token (`HFToken`) as `Authorization: Bearer` with each request to the
/// Hub's own origin, after the run's own interceptor (an S3 signer) had its turn.
///
/// The header is one of the request's own, which the core never sends across a redirect
/// to another origin (`RedirectWalk`): the storage host a `resolve` URL redirects to never
/// gets the token. A request that already carries `Authorization` (a manifest header)
/// keeps it.
package struct HFTokenInterceptor: ImmediateRequestInterceptor {
  package let token: HFToken
  package let endpoint: HFEndpoint
  /// The run's other interceptor, applied first.
  package let inner: (any ImmediateRequestInterceptor)?

  package init(token: HFToken, endpoint: HFEndpoint, inner: (any ImmediateRequestInterceptor)?) {
    self.token = token
    self.endpoint = endpoint
    self.inner = inner
  }

  package func adaptNow(_ request: inout TransferRequest, for entry: ManifestEntry)
    throws(TransferError)
  {
    try inner?.adaptNow(&request, for: entry)
    guard Origin(request.url) == endpoint.origin,
      !request.headers.contains(where: { $0.hasName("Authorization") })
    else { return }
    request.headers.append(HTTPField("Authorization", "Bearer \(token.value)"))
  }

  package func adapt(_ request: inout TransferRequest, for entry: ManifestEntry)
    async throws(TransferError)
  {
    try adaptNow(&request, for: entry)
  }

  package func retry(after request: TransferRequest, for entry: ManifestEntry)
    async throws(TransferError) -> Bool
  { false }
}
