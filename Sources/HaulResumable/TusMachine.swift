import Foundation
import HaulCore

/// One attempt at a tus 1.0.0 upload (tus.io/protocols/resumable-upload), as a value: each
/// answer the executor reports returns the next step; it does no I/O.
///
/// The attempt asks the creation endpoint which extensions it offers (`OPTIONS`), then
/// either asks a recorded upload for its offset (`HEAD`) or creates one (`POST` with
/// `Upload-Length` and the file's name in `Upload-Metadata`, as tus-js-client sends it), and
/// sends the rest in `PATCH` requests of at most `chunkSize` bytes
/// (`application/offset+octet-stream`), each with `Upload-Checksum: sha1 …` when the server
/// offers the checksum extension with SHA-1. The offset always comes from the server: a
/// `409` asks again, and an upload the server forgot (`404`, `410`) is created anew, once per
/// attempt (`ResumableAttempt`). A `460` (checksum mismatch) fails the attempt as
/// `checksum_mismatch`, retried.
struct TusMachine: ResumableMachine {
  /// The protocol version every request names (`Tus-Resumable`).
  static let version = "1.0.0"

  static let headers = [HTTPField("Tus-Resumable", version)]

  var attempt: ResumableAttempt
  /// Whether `PATCH` requests carry `Upload-Checksum: sha1`.
  private(set) var checksums = false

  init(attempt: ResumableAttempt) {
    self.attempt = attempt
  }

  mutating func start(recorded: URL?) -> ResumableStep {
    attempt.location = recorded
    attempt.phase = .discovering
    return .send(ResumableRequest("OPTIONS", attempt.creationURL, headers: Self.headers))
  }

  mutating func answered(_ head: ResponseHead) -> ResumableStep {
    let status = head.status
    let success = (200..<300).contains(status)
    switch attempt.phase {
    case .discovering:
      if success {
        checksums =
          ResumableFields.list(head.value(for: "Tus-Extension")).contains("checksum")
          && ResumableFields.list(head.value(for: "Tus-Checksum-Algorithm")).contains("sha1")
        if let versions = head.value(for: "Tus-Version"),
          !ResumableFields.list(versions).contains(Self.version)
        {
          return attempt.fail(.protocol, "the tus server speaks \(versions), not \(Self.version)")
        }
      }
      return attempt.locate() ?? create()
    case .creating:
      guard success else { return attempt.failHTTP(head) }
      guard let url = ResumableFields.location(head, from: attempt.creationURL) else {
        return attempt.fail(.protocol, "the tus server created the upload without a Location")
      }
      attempt.location = url
      attempt.offset = 0
      return next()
    case .locating:
      switch attempt.located(head) {
      case .offset(let found):
        attempt.offset = found
        return next()
      case .forgotten, .beyond: return attempt.renew(head) ?? create()
      case .refused: return attempt.failHTTP(head)
      case .noOffset: return attempt.fail(.protocol, "the tus server's HEAD gave no Upload-Offset")
      }
    case .appending(let sent):
      return appended(sent, head)
    case .idle, .finished, .failed:
      return attempt.fail(.protocol, "an answer arrived when no tus request was out")
    }
  }

  // MARK: Steps

  /// The answer to the `PATCH` of the bytes `sent`.
  private mutating func appended(_ sent: Range<Int64>, _ head: ResponseHead) -> ResumableStep {
    switch head.status {
    case 404, 410: return attempt.renew(head) ?? create()
    case 409: return attempt.conflict() ? attempt.locate() ?? create() : attempt.failHTTP(head)
    case 460:
      return attempt.fail(
        .checksumMismatch, "the tus server found the chunk at \(sent.lowerBound) corrupted",
        transient: true)
    case 200..<300:
      guard let found = ResumableFields.integer(head.value(for: "Upload-Offset")),
        found > sent.lowerBound, found <= sent.upperBound
      else {
        return attempt.fail(.protocol, "the tus server's PATCH answer gave no new Upload-Offset")
      }
      attempt.offset = found
      return next()
    default:
      return attempt.failHTTP(head)
    }
  }

  private mutating func create() -> ResumableStep {
    attempt.phase = .creating(0..<0)
    attempt.location = nil
    let name = Data(attempt.fileName.utf8).base64EncodedString()
    return .send(
      ResumableRequest(
        "POST", attempt.creationURL,
        headers: Self.headers + [
          HTTPField("Upload-Length", String(attempt.size)),
          HTTPField("Upload-Metadata", "filename \(name)"),
        ]))
  }

  /// The next chunk from the offset, or the end.
  private mutating func next() -> ResumableStep {
    guard attempt.offset < attempt.size else { return attempt.finish() }
    let patch = attempt.append(checksumSHA1: checksums) { _ in
      [HTTPField("Content-Type", "application/offset+octet-stream")]
    }
    return patch ?? attempt.finish()
  }
}
