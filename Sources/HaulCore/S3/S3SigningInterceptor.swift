import Foundation

/// `--s3`: signs every request to the S3 endpoint with SigV4, through the scheduler's
/// `RequestInterceptor` hook, so both transports send the same signed requests.
///
/// The signing headers are added to the request's own headers, which `Exchange` sends only
/// to the original origin: a redirect to another scheme, host or port carries neither the
/// signature nor the session token. A retry is signed anew (a fresh date). Requests to
/// other origins (plain https entries in the same manifest) go unsigned. A 401 is not
/// retried: S3 answers a bad signature with 403, which no refresh would change.
package struct S3SigningInterceptor: ImmediateRequestInterceptor {
  /// The signer: credentials, region, service.
  package let signer: SigV4Signer
  /// The endpoint whose requests are signed.
  package let endpoint: S3Endpoint
  private let now: @Sendable () -> Date

  /// An interceptor signing requests to `endpoint`; `now` gives the signing time (tests fix
  /// it).
  package init(
    signer: SigV4Signer, endpoint: S3Endpoint, now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.signer = signer
    self.endpoint = endpoint
    self.now = now
  }

  package func adapt(_ request: inout TransferRequest, for entry: ManifestEntry)
    async throws(TransferError)
  {
    try adaptNow(&request, for: entry)
  }

  package func adaptNow(_ request: inout TransferRequest, for entry: ManifestEntry)
    throws(TransferError)
  {
    guard endpoint.serves(request.url) else { return }
    try sign(&request)
  }

  package func retry(after request: TransferRequest, for entry: ManifestEntry)
    async throws(TransferError) -> Bool
  {
    false
  }

  /// Signs `request` in place: the payload hash (hashing an http body file), then the
  /// headers. `io` when an http body cannot be read.
  package func sign(_ request: inout TransferRequest) throws(TransferError) {
    let payloadHash = try S3PayloadHash.of(request.body, scheme: request.url.scheme)
    request.headers = signer.sign(
      method: request.method, url: request.url, headers: request.headers,
      payloadHash: payloadHash, date: now())
  }
}
