import Foundation
import HaulCore

/// One attempt at an upload through the IETF "Resumable Uploads for HTTP" draft
/// (draft-ietf-httpbis-resumable-upload, the text of interop version 8), as a value: each
/// answer the executor reports returns the next step; it does no I/O.
///
/// Creation is a `POST` to the entry's URL with `Upload-Length`, the file's name in
/// `Content-Disposition`, and the first chunk as its content: `Upload-Complete: ?1` when that
/// chunk is the whole file (an ordinary upload the server may make resumable), `?0`
/// otherwise. The upload resource's URL comes in a `104 (Upload Resumption Supported)`
/// interim response (only those naming this interop version count) or in the final answer's
/// `Location`, which must agree. The rest goes in `PATCH` requests
/// (`application/partial-upload`, `Upload-Offset`, `Upload-Complete` on the last), at most
/// `chunkSize` bytes each, or the server's `max-append-size` (`Upload-Limit`). A recorded
/// upload is asked for its offset (`HEAD`) first; a `409` names the server's offset in
/// `Upload-Offset`; an upload the server forgot (`404`, `410`) is created anew, once per
/// attempt (`ResumableAttempt`); an answer with `Upload-Complete: ?1` is the end, whatever its
/// status.
struct IETFUploadMachine: ResumableMachine {
  /// The interop version of the draft text followed (`Upload-Draft-Interop-Version`).
  static let interopVersion = "8"

  static let headers = [HTTPField("Upload-Draft-Interop-Version", interopVersion)]

  var attempt: ResumableAttempt
  /// The `Location` of the creation request's `104` answer, when one came.
  private var announced: URL?

  init(attempt: ResumableAttempt) {
    self.attempt = attempt
  }

  mutating func start(recorded: URL?) -> ResumableStep {
    attempt.location = recorded
    return attempt.locate() ?? create()
  }

  /// A `104` of this interop version announces the upload resource (creation) or the offset
  /// reached so far.
  mutating func interim(_ head: ResponseHead) {
    guard head.status == 104,
      head.value(for: "Upload-Draft-Interop-Version")?.trimmingASCIIWhitespace()
        == Self.interopVersion
    else { return }
    if case .creating = attempt.phase, announced == nil,
      let url = ResumableFields.location(head, from: attempt.creationURL)
    {
      announced = url
      attempt.location = url
    }
    if let reached = ResumableFields.integer(head.value(for: "Upload-Offset")),
      reached > attempt.offset, reached <= attempt.size
    {
      attempt.offset = reached
    }
  }

  mutating func answered(_ head: ResponseHead) -> ResumableStep {
    let status = head.status
    let success = (200..<300).contains(status)
    if case .creating = attempt.phase, status == 413, limit(head) { return create() }
    if case .appending = attempt.phase, status == 413, limit(head) { return next() }
    if ResumableFields.boolean(head.value(for: "Upload-Complete")) == true,
      attempt.phase != .locating
    {
      return success ? attempt.finish() : attempt.failHTTP(head)
    }
    switch attempt.phase {
    case .creating(let sent):
      return created(sent, head)
    case .locating:
      if success, ResumableFields.boolean(head.value(for: "Upload-Complete")) == true {
        return attempt.finish()
      }
      switch attempt.located(head) {
      case .offset(let found):
        limit(head)
        attempt.offset = found
        return next()
      case .forgotten: return attempt.renew(head) ?? create()
      case .refused: return attempt.failHTTP(head, resumable: status >= 500)
      case .noOffset:
        return attempt.fail(.protocol, "the upload resource's HEAD gave no Upload-Offset")
      case .beyond(let found):
        return attempt.fail(
          .protocol, "the server holds \(found) bytes of a \(attempt.size)-byte file")
      }
    case .appending(let sent):
      if status == 404 || status == 410 { return attempt.renew(head) ?? create() }
      if status == 409, let found = ResumableFields.integer(head.value(for: "Upload-Offset")) {
        guard attempt.conflict(), found <= attempt.size else { return attempt.failHTTP(head) }
        attempt.offset = found
        return next()
      }
      guard success else { return attempt.failHTTP(head, resumable: status >= 500) }
      if sent.upperBound == attempt.size { return attempt.finish() }
      attempt.offset =
        ResumableFields.integer(head.value(for: "Upload-Offset")) ?? sent.upperBound
      return next()
    case .idle, .discovering, .finished, .failed:
      return attempt.fail(.protocol, "an answer arrived when no upload request was out")
    }
  }

  // MARK: Steps

  /// The answer to the creation request that carried the bytes `sent`.
  private mutating func created(_ sent: Range<Int64>, _ head: ResponseHead) -> ResumableStep {
    let location = ResumableFields.location(head, from: attempt.creationURL)
    guard (200..<300).contains(head.status) else {
      return attempt.failHTTP(head, resumable: head.status >= 500)
    }
    if sent.upperBound == attempt.size, location == nil { return attempt.finish() }
    guard let location else {
      return attempt.fail(.protocol, "the server created the upload without a Location")
    }
    if let announced, announced != location {
      return attempt.fail(
        .protocol, "the upload's Location changed between the 104 and the answer")
    }
    attempt.location = location
    limit(head)
    attempt.offset = ResumableFields.integer(head.value(for: "Upload-Offset")) ?? sent.upperBound
    return next()
  }

  private mutating func create() -> ResumableStep {
    let range = 0..<min(attempt.size, attempt.chunkSize)
    attempt.phase = .creating(range)
    attempt.location = nil
    attempt.offset = 0
    announced = nil
    return .send(
      ResumableRequest(
        "POST", attempt.creationURL,
        headers: Self.headers + [
          HTTPField("Upload-Complete", range.upperBound == attempt.size ? "?1" : "?0"),
          HTTPField("Upload-Length", String(attempt.size)),
          HTTPField("Content-Disposition", Self.disposition(attempt.fileName)),
        ], body: range))
  }

  private mutating func next() -> ResumableStep {
    let size = attempt.size
    let patch = attempt.append { range in
      [
        HTTPField("Upload-Complete", range.upperBound == size ? "?1" : "?0"),
        HTTPField("Content-Type", "application/partial-upload"),
      ]
    }
    return patch ?? create()
  }

  /// Takes the server's `max-append-size` (`Upload-Limit`) as the chunk size when smaller
  /// (a `413` that names one is sent again within it); whether it lowered the chunk size.
  @discardableResult
  private mutating func limit(_ head: ResponseHead) -> Bool {
    let most = ResumableFields.integers(head.value(for: "Upload-Limit"))["max-append-size"]
    return most.map { attempt.limitChunk(to: $0) } ?? false
  }

  /// `inline` with the name in RFC 8187 form, which carries any character.
  static func disposition(_ name: String) -> String {
    let allowed = CharacterSet(
      charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$&+-.^_`|~")
    let encoded = name.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    return "inline; filename*=UTF-8''\(encoded)"
  }
}
