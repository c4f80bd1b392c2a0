import Foundation
import HaulCore

/// What both resumable protocols' machines (`TusMachine`, `IETFUploadMachine`) know of one
/// attempt, and the transitions they share, as a value: the file (size, name), the creation
/// endpoint, the upload resource once known and the offset the server acknowledged, the
/// request out (`phase`), and the protocol's own header fields on every request.
///
/// The shared rules: a recorded resource is asked for its offset with `HEAD` (`locate`,
/// `located`); the rest goes from that offset in `PATCH` requests of at most `chunkSize`
/// bytes (`append`); a resource the server forgot is created anew at most once per attempt
/// (`renew`); a `409` is taken at most three times (`conflict`); a request that failed
/// without an answer ends the attempt and leaves the resource for the next one
/// (`exchangeFailed`); the resource is cancelled with `DELETE` (`cancellation`: tus
/// termination, the draft's cancellation). Each machine builds its creation request, adds
/// its own fields, and reads its own answers.
struct ResumableAttempt: Sendable, Hashable {
  /// The request out, or how the attempt ended.
  enum Phase: Sendable, Hashable {
    case idle
    /// Asking the creation endpoint what it offers (tus's `OPTIONS`).
    case discovering
    /// Creating the upload resource, with the bytes the request carries (the draft sends the
    /// first chunk; tus none).
    case creating(Range<Int64>)
    /// Asking the recorded resource for its offset (`HEAD`).
    case locating
    /// Sending these bytes to the resource.
    case appending(Range<Int64>)
    case finished, failed
  }

  /// What a `HEAD` answer of the upload resource says.
  enum Located: Sendable, Hashable {
    /// The server holds the first this many bytes of the file.
    case offset(Int64)
    /// The server no longer has the upload (`404`, `410`) or holds one of another length.
    case forgotten
    /// Another error status.
    case refused
    /// A success without `Upload-Offset`.
    case noOffset
    /// An `Upload-Offset` past the file's end.
    case beyond(Int64)
  }

  let creationURL: URL
  let size: Int64
  let fileName: String
  /// The protocol's fields on every request (`Tus-Resumable`, `Upload-Draft-Interop-Version`).
  let headers: [HTTPField]
  /// Bytes per request at most (the draft's `max-append-size` can lower it).
  private(set) var chunkSize: Int64
  /// The upload resource, once known.
  var location: URL?
  /// What the server acknowledged.
  var offset: Int64 = 0
  var phase = Phase.idle
  /// Whether this attempt already replaced an upload the server forgot.
  private(set) var renewed = false
  /// The `409` answers this attempt took.
  private(set) var conflicts = 0

  init(creationURL: URL, size: Int64, fileName: String, chunkSize: Int64, headers: [HTTPField]) {
    self.creationURL = creationURL
    self.size = size
    self.fileName = fileName
    self.chunkSize = max(1, chunkSize)
    self.headers = headers
  }

  /// The next bytes to send: from `offset`, at most `chunkSize`.
  var nextChunk: Range<Int64> { offset..<min(size, offset + chunkSize) }

  /// Lowers the chunk size to `most` when that is smaller and positive; whether it did.
  mutating func limitChunk(to most: Int64) -> Bool {
    guard most > 0, most < chunkSize else { return false }
    chunkSize = most
    return true
  }

  /// The `HEAD` that asks the recorded resource for its offset, `nil` when none is known
  /// (the machine creates one instead).
  mutating func locate() -> ResumableStep? {
    guard let location else { return nil }
    phase = .locating
    return .send(ResumableRequest("HEAD", location, headers: headers))
  }

  /// The `PATCH` of the next chunk to the resource, with the protocol's fields, `Upload-Offset`
  /// and those `fields` gives for the chunk; `nil` when no resource is known.
  mutating func append(
    checksumSHA1: Bool = false, fields: (Range<Int64>) -> [HTTPField]
  ) -> ResumableStep? {
    guard let location else { return nil }
    let range = nextChunk
    phase = .appending(range)
    return .send(
      ResumableRequest(
        "PATCH", location,
        headers: headers + [HTTPField("Upload-Offset", String(offset))] + fields(range),
        body: range, checksumSHA1: checksumSHA1))
  }

  /// Reads the answer to `locate`'s `HEAD`.
  func located(_ head: ResponseHead) -> Located {
    if head.status == 404 || head.status == 410 { return .forgotten }
    guard (200..<300).contains(head.status) else { return .refused }
    guard let found = ResumableFields.integer(head.value(for: "Upload-Offset")) else {
      return .noOffset
    }
    if let length = ResumableFields.integer(head.value(for: "Upload-Length")), length != size {
      return .forgotten
    }
    return found <= size ? .offset(found) : .beyond(found)
  }

  /// Readies the creation of a new upload resource in place of one the server forgot: `nil`
  /// the first time in this attempt (the machine creates it), the failure of `head` after.
  mutating func renew(_ head: ResponseHead) -> ResumableStep? {
    guard !renewed else { return failHTTP(head) }
    renewed = true
    return nil
  }

  /// Counts a `409`; whether the attempt may go on from it (three per attempt at most).
  mutating func conflict() -> Bool {
    conflicts += 1
    return conflicts <= 3
  }

  /// The server holds the whole file.
  mutating func finish() -> ResumableStep {
    offset = size
    phase = .finished
    return .finished
  }

  /// The request of the last `send` step failed without a final answer; the resource, when
  /// known, stays for the next attempt.
  mutating func exchangeFailed(_ error: TransferError) -> ResumableStep {
    phase = .failed
    return .failed(AttemptFailure(error: error))
  }

  /// An answer the protocol cannot go on from.
  mutating func fail(_ code: TransferError.Code, _ message: String, transient: Bool = false)
    -> ResumableStep
  {
    phase = .failed
    return .failed(code, message, transient: transient)
  }

  /// The failure an error status means; `resumable` also retries it when its code alone
  /// would not (the next attempt asks for the offset).
  mutating func failHTTP(_ head: ResponseHead, resumable: Bool = false) -> ResumableStep {
    phase = .failed
    return .failed(answer: head, retried: resumable)
  }

  /// The request that cancels the upload resource (`DELETE`), when there is one.
  func cancellation() -> ResumableRequest? {
    location.map { ResumableRequest("DELETE", $0, headers: headers) }
  }
}
