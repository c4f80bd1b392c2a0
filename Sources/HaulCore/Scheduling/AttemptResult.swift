import Foundation

/// What one failed attempt left behind.
struct AttemptFailure: Error, Sendable {
  var error: TransferError
  var retryAfter: Double?
  /// Whether the server sent a response head before the failure (it was reachable).
  var answered = false
  /// Whether the failure is worth another try whatever its code says: an S3 error code
  /// retried beside its status (`S3ErrorBody.retryableCodes`).
  var transient = false

  /// The failure an HTTP error status means, with the server's `Retry-After`; `body`, the
  /// start of the error body, may name an S3 error code, told in the message and retried
  /// when it is `RequestTimeout`.
  static func http(_ head: ResponseHead, body: S3ErrorBody? = nil) -> AttemptFailure {
    let code = body?.code
    return AttemptFailure(
      error: TransferError(
        .http(head.status),
        "the server answered \(head.status)" + (code.map { " (\($0))" } ?? "")),
      retryAfter: RetryPolicy.retryAfter(head.value(for: "Retry-After"), now: Date()),
      transient: body?.isRetryable ?? false)
  }
}

/// What a successful attempt produced.
struct AttemptSuccess: Sendable {
  /// The file's SHA-256, when computed.
  var sha256: String?
  /// Every digest computed of the file.
  var digests = DigestValues()
  /// What the file was checked against and matched (`ExpectedDigest.source`), in order.
  var verified: [String] = []
  /// A `--refresh` check found the file in place current: nothing was downloaded.
  var unchanged = false
}
