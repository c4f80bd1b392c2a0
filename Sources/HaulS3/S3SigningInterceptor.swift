import Foundation
import HaulCore

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
    Self.addChecksum(to: &request, for: entry)
    if entry.operation == .download, request.method == "GET" || request.method == "HEAD",
      !request.headers.contains(where: { $0.hasName(Self.checksumModeHeader) })
    {
      // S3 sends an object's `x-amz-checksum-sha256` only when asked; haul checks it (a
      // segmented download asks a `HEAD` for it: a range carries none).
      request.headers.append(HTTPField(Self.checksumModeHeader, "ENABLED"))
    }
    try sign(&request)
  }

  /// The header asking S3 for an object's checksums on a download.
  static let checksumModeHeader = "x-amz-checksum-mode"

  /// The header naming an upload's SHA-256, which S3 checks against the bytes it receives.
  static let checksumHeader = "x-amz-checksum-sha256"

  /// Adds `x-amz-checksum-sha256` (base64 of the digest, with
  /// `x-amz-sdk-checksum-algorithm: SHA256`) to a whole-object upload (a body,
  /// no query: not a part of a multipart upload) whose entry gives a `sha256`, so that S3
  /// refuses bytes that differ from it (`400 BadDigest`) instead of storing them; the header
  /// is signed with the others. A header of that name already given is left alone.
  static func addChecksum(to request: inout TransferRequest, for entry: ManifestEntry) {
    guard entry.operation == .upload, request.body != nil, request.url.query == nil,
      let hex = entry.manifestDigests[.sha256],
      !request.headers.contains(where: { $0.hasName(checksumHeader) })
    else { return }
    var digest: [UInt8] = []
    Hex.appendDecoded(hex, to: &digest)
    guard digest.count == 32 else { return }
    request.headers.append(HTTPField(checksumHeader, Data(digest).base64EncodedString()))
    // As the AWS SDKs send it; stores such as moto keep the checksum only with it.
    request.headers.append(HTTPField("x-amz-sdk-checksum-algorithm", "SHA256"))
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
