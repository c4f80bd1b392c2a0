/// Reads why a server refused a request from the start of its error body, for servers that
/// say it only there: an object store's XML error document names a code (`RequestTimeout`)
/// that the status alone does not, and one that makes the answer worth another try.
///
/// The core captures the start of an error answer's body only for the statuses the
/// classifier asks for (`captures(status:)`), so a run without one keeps no error body.
package protocol ErrorBodyClassifier: Sendable {
  /// Whether the body of an error answer with `status` is worth capturing.
  func captures(status: Int) -> Bool
  /// What `body` (at most `ErrorBody.limit` bytes of it) says of the refusal; `nil` when it
  /// names nothing this classifier reads.
  func reason(in body: [UInt8]) -> ErrorBodyReason?
}

/// What an error body says of a refusal: the server's own code, told in the failure's
/// message, and whether that code makes the answer worth another try whatever its status.
package struct ErrorBodyReason: Sendable, Hashable {
  /// The server's error code (letters and digits), told as `the server answered 400 (CODE)`.
  package var code: String
  /// Whether the attempt is retried for this code beside its status.
  package var retryable: Bool

  package init(code: String, retryable: Bool) {
    self.code = code
    self.retryable = retryable
  }
}

/// The start of an error answer's body, captured for its classifier: at most `limit` bytes,
/// so an error page of any size costs one small buffer.
package struct ErrorBody: Sendable {
  /// The bytes kept; at most `limit`.
  package private(set) var bytes: [UInt8] = []
  /// Bytes beyond this are dropped: error documents fit in far less.
  package static let limit = 2048
  private let classifier: any ErrorBodyClassifier

  private init(classifier: any ErrorBodyClassifier) {
    self.classifier = classifier
  }

  /// An empty capture for an answer with `status`, when `classifier` reads such bodies;
  /// `nil` otherwise (and without a classifier).
  package static func capturing(status: Int, for classifier: (any ErrorBodyClassifier)?)
    -> ErrorBody?
  {
    guard let classifier, classifier.captures(status: status) else { return nil }
    return ErrorBody(classifier: classifier)
  }

  /// Keeps the first bytes of `chunk` that still fit.
  package mutating func append(_ chunk: UnsafeRawBufferPointer) {
    let room = Self.limit - bytes.count
    guard room > 0 else { return }
    bytes.append(contentsOf: chunk.prefix(room))
  }

  /// What the classifier reads in the bytes kept.
  package var reason: ErrorBodyReason? { classifier.reason(in: bytes) }
}
