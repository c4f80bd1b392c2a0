import Foundation

/// What one failed attempt left behind.
package struct AttemptFailure: Error, Sendable {
  package var error: TransferError
  package var retryAfter: Double?
  /// Whether the server sent a response head before the failure (it was reachable).
  package var answered = false
  /// Whether the failure is worth another try whatever its code says: an error body's code
  /// retried beside its status (`ErrorBodyReason.retryable`).
  package var transient = false

  package init(
    error: TransferError, retryAfter: Double? = nil, answered: Bool = false,
    transient: Bool = false
  ) {
    self.error = error
    self.retryAfter = retryAfter
    self.answered = answered
    self.transient = transient
  }

  /// The failure an HTTP error status means, with the server's `Retry-After`; `body`, the
  /// start of the error body, may name the server's error code (`ErrorBodyClassifier`),
  /// told in the message and retried when the classifier says so.
  package static func http(
    _ head: ResponseHead, body: ErrorBody? = nil, explained explanation: String? = nil
  ) -> AttemptFailure {
    let reason = body?.reason
    return AttemptFailure(
      error: TransferError(
        .http(head.status),
        "the server answered \(head.status)" + (reason.map { " (\($0.code))" } ?? "")
          + (explanation.map { ": " + $0 } ?? "")),
      retryAfter: RetryPolicy.retryAfter(head.value(for: "Retry-After"), now: Date()),
      transient: reason?.retryable ?? false)
  }
}

/// What a successful attempt produced.
package struct AttemptSuccess: Sendable {
  /// The file's SHA-256, when computed.
  package var sha256: String?
  /// Every digest computed of the file.
  package var digests = DigestValues()
  /// What the file was checked against and matched (`ExpectedDigest.source`), in order.
  package var verified: [String] = []
  /// A `--refresh` check found the file in place current: nothing was downloaded.
  package var unchanged = false

  package init(
    sha256: String? = nil, digests: DigestValues = DigestValues(), verified: [String] = [],
    unchanged: Bool = false
  ) {
    self.sha256 = sha256
    self.digests = digests
    self.verified = verified
    self.unchanged = unchanged
  }
}

/// Why an attempt cannot go on as prepared: its partial file must be dropped and the
/// attempt started over from the first byte, or it failed.
enum AttemptSetback: Error, Sendable {
  /// The partial file is not a prefix of the resource (for this reason).
  case restart(String)
  /// The attempt failed.
  case failed(AttemptFailure)
}

/// What an attempt's exchange left, as `AttemptSteps.judge` reads it.
enum AttemptVerdict: Sendable {
  /// The body is complete (on disk, for a download; a 2xx, for an upload): `complete`
  /// checks and finishes it.
  case received
  /// A `--refresh` check was answered 304: the file in place is current, and the partial
  /// file is gone.
  case unchanged
  /// The attempt cannot go on as it is.
  case setback(AttemptSetback)
}

/// How the host answered an attempt, noted as its slot is given back (`RunState.release`):
/// the status (a 429 or 503 makes haul polite to the host), its `Retry-After`, and whether
/// it sent a response head at all (it was reachable in this run).
struct SlotRelease: Sendable, Hashable {
  var status: Int?
  var retryAfter: Double?
  var answered = false

  /// A slot given back with nothing learned of the host (a segment's, a cancelled entry's).
  static let plain = SlotRelease()

  /// What an attempt that ended in `result` says of its host.
  init(after result: Result<AttemptSuccess, AttemptFailure>) {
    switch result {
    case .success:
      status = 200
    case .failure(let failure):
      status = failure.error.code.httpStatus
      retryAfter = failure.retryAfter
      answered = failure.answered
    }
  }

  init(status: Int? = nil, retryAfter: Double? = nil, answered: Bool = false) {
    self.status = status
    self.retryAfter = retryAfter
    self.answered = answered
  }
}

/// How one attempt ended: its result, and what giving its slot back tells the run.
struct AttemptEnd: Sendable {
  var result: Result<AttemptSuccess, AttemptFailure>
  var release: SlotRelease

  init(_ result: Result<AttemptSuccess, AttemptFailure>) {
    self.result = result
    release = SlotRelease(after: result)
  }
}
