import Foundation
import HaulCore

/// Signs requests with AWS Signature Version 4 (`AWS4-HMAC-SHA256`) in headers, as S3 and
/// S3-compatible stores check them.
///
/// Signing replaces what an earlier signing left (`Authorization`, `X-Amz-Date`,
/// `X-Amz-Security-Token`, `X-Amz-Content-SHA256`), so a retried request can be signed
/// again. Every other header of the request is signed as it is, except the hop-by-hop ones
/// in `SigV4CanonicalRequest.unsignedHeaderNames`; `Host` is signed from the URL. The headers
/// it adds hold secrets (the signature, the session token): callers keep them among the
/// transfer's own headers, which are never printed and never follow a redirect to another
/// origin.
///
/// - SeeAlso: "Signature Version 4 signing process" in the AWS IAM guide; botocore's
///   `S3SigV4Auth`, against which `SigV4SignerBotocoreTests` checks this type.
package struct SigV4Signer: Sendable {
  /// The payload hash sent when the body is not hashed (over https only).
  package static let unsignedPayload = "UNSIGNED-PAYLOAD"
  /// The SHA-256 of no bytes, the payload hash of a request without a body.
  package static let emptyPayloadHash =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

  /// The key to sign with.
  package var credentials: AWSCredentials
  /// The region of the scope (`us-east-1`, `auto` for R2, whatever a store expects).
  package var region: String
  /// The service of the scope: `s3`.
  package var service: String

  package init(credentials: AWSCredentials, region: String, service: String = "s3") {
    self.credentials = credentials
    self.region = region
    self.service = service
  }

  /// `headers` for a request of `method` to `url` made at `date`, with the signing headers
  /// put in: `X-Amz-Date` (or `Date` rewritten, when the request has one),
  /// `X-Amz-Security-Token` for temporary credentials, `X-Amz-Content-SHA256` set to
  /// `payloadHash`, and `Authorization`.
  package func sign(
    method: String, url: URL, headers: [HTTPField], payloadHash: String, date: Date
  ) -> [HTTPField] {
    let timestamp = SigV4Timestamp(date)
    var signed = headers
    signed.removeAll { $0.hasName("Authorization") }
    if signed.contains(where: { $0.hasName("Date") }) {
      signed.removeAll { $0.hasName("Date") || $0.hasName("X-Amz-Date") }
      signed.append(HTTPField("Date", timestamp.httpDate))
    } else {
      signed.removeAll { $0.hasName("X-Amz-Date") }
      signed.append(HTTPField("X-Amz-Date", timestamp.amzDate))
    }
    if let token = credentials.sessionToken {
      signed.removeAll { $0.hasName("X-Amz-Security-Token") }
      signed.append(HTTPField("X-Amz-Security-Token", token))
    }
    signed.removeAll { $0.hasName("X-Amz-Content-SHA256") }
    signed.append(HTTPField("X-Amz-Content-SHA256", payloadHash))

    let canonical = SigV4CanonicalRequest(
      method: method, url: url, headers: signed, payloadHash: payloadHash)
    let scope = "\(timestamp.scopeDate)/\(region)/\(service)/aws4_request"
    let stringToSign = [
      "AWS4-HMAC-SHA256", timestamp.amzDate, scope, SHA256.hex(of: canonical.text.utf8),
    ].joined(separator: "\n")
    let signature = Hex.encode(
      HMACSHA256.mac(key: signingKey(scopeDate: timestamp.scopeDate), message: stringToSign))
    signed.append(
      HTTPField(
        "Authorization",
        "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), "
          + "SignedHeaders=\(canonical.signedHeaders), Signature=\(signature)"))
    return signed
  }

  /// The key derived for one day, region and service: HMAC chained from `AWS4` + secret.
  func signingKey(scopeDate: String) -> [UInt8] {
    let dateKey = HMACSHA256.mac(
      key: Array("AWS4\(credentials.secretAccessKey)".utf8), message: scopeDate)
    let regionKey = HMACSHA256.mac(key: dateKey, message: region)
    let serviceKey = HMACSHA256.mac(key: regionKey, message: service)
    return HMACSHA256.mac(key: serviceKey, message: "aws4_request")
  }

}
