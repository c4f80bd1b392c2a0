import HaulCore

/// How a bucket appears in a request URL: as the first label of the host
/// (`https://BUCKET.s3.REGION.amazonaws.com/KEY`, AWS's default) or as the first path
/// segment (`https://ENDPOINT/BUCKET/KEY`, what MinIO, Ceph and most self-hosted stores
/// expect).
package enum S3Addressing: String, Sendable, Hashable, CaseIterable {
  case path
  case virtual
}
