import Foundation

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
/// attempt; an answer with `Upload-Complete: ?1` is the end, whatever its status.
struct IETFUploadMachine: Sendable {
  /// The interop version of the draft text followed (`Upload-Draft-Interop-Version`).
  static let interopVersion = "8"

  enum Phase: Sendable, Hashable {
    case idle, creating(Range<Int64>), locating, appending(Range<Int64>), finished, failed
  }

  let creationURL: URL
  let size: Int64
  let fileName: String
  private(set) var chunkSize: Int64
  /// The upload resource, once known.
  private(set) var location: URL?
  /// What the server acknowledged.
  private(set) var offset: Int64 = 0
  private(set) var phase = Phase.idle
  /// The `Location` of the creation request's `104` answer, when one came.
  private var announced: URL?
  /// Whether this attempt already replaced an upload the server forgot.
  private var renewed = false
  private var conflicts = 0

  init(creationURL: URL, size: Int64, fileName: String, chunkSize: Int64) {
    self.creationURL = creationURL
    self.size = size
    self.fileName = fileName
    self.chunkSize = max(1, chunkSize)
  }

  /// Starts the attempt; `recorded` is the upload resource an earlier attempt or run made.
  mutating func start(recorded: URL?) -> ResumableStep {
    location = recorded
    return recorded == nil ? create() : locate()
  }

  /// An interim answer to the request out: a `104` of this interop version announces the
  /// upload resource (creation) or the offset reached so far.
  mutating func interim(_ head: ResponseHead) {
    guard head.status == 104,
      head.value(for: "Upload-Draft-Interop-Version")?.trimmingASCIIWhitespace()
        == Self.interopVersion
    else { return }
    if case .creating = phase, announced == nil,
      let url = ResumableFields.location(head, from: creationURL)
    {
      announced = url
      location = url
    }
    if let reached = ResumableFields.integer(head.value(for: "Upload-Offset")), reached > offset,
      reached <= size
    {
      offset = reached
    }
  }

  /// The final answer to the request of the last `send` step.
  mutating func answered(_ head: ResponseHead) -> ResumableStep {
    let status = head.status
    let success = (200..<300).contains(status)
    if case .creating = phase, status == 413, shrink(head) { return create() }
    if case .appending = phase, status == 413, shrink(head) { return next() }
    if ResumableFields.boolean(head.value(for: "Upload-Complete")) == true,
      phase != .locating
    {
      return success ? finish() : failHTTP(head)
    }
    switch phase {
    case .creating(let sent):
      guard success else { return failHTTP(head, resumable: status >= 500) }
      if sent.upperBound == size, ResumableFields.location(head, from: creationURL) == nil {
        return finish()
      }
      guard let url = ResumableFields.location(head, from: creationURL) else {
        return fail(.protocol, "the server created the upload without a Location")
      }
      if let announced, announced != url {
        return fail(.protocol, "the upload's Location changed between the 104 and the answer")
      }
      location = url
      limit(head)
      offset = ResumableFields.integer(head.value(for: "Upload-Offset")) ?? sent.upperBound
      return next()
    case .locating:
      if status == 404 || status == 410 { return createAnew(head) }
      guard success else { return failHTTP(head, resumable: status >= 500) }
      if ResumableFields.boolean(head.value(for: "Upload-Complete")) == true { return finish() }
      guard let found = ResumableFields.integer(head.value(for: "Upload-Offset")) else {
        return fail(.protocol, "the upload resource's HEAD gave no Upload-Offset")
      }
      if let length = ResumableFields.integer(head.value(for: "Upload-Length")), length != size {
        return createAnew(head)
      }
      guard found <= size else {
        return fail(.protocol, "the server holds \(found) bytes of a \(size)-byte file")
      }
      limit(head)
      offset = found
      return next()
    case .appending(let sent):
      if status == 404 || status == 410 { return createAnew(head) }
      if status == 409, let found = ResumableFields.integer(head.value(for: "Upload-Offset")) {
        conflicts += 1
        guard conflicts <= 3, found <= size else { return failHTTP(head) }
        offset = found
        return next()
      }
      guard success else { return failHTTP(head, resumable: status >= 500) }
      if sent.upperBound == size { return finish() }
      offset = ResumableFields.integer(head.value(for: "Upload-Offset")) ?? sent.upperBound
      return next()
    case .idle, .finished, .failed:
      return fail(.protocol, "an answer arrived when no upload request was out")
    }
  }

  /// The request of the last `send` step failed without a final answer. A creation whose
  /// `104` announced the upload resource can be resumed from there by the next attempt.
  mutating func exchangeFailed(_ error: TransferError) -> ResumableStep {
    phase = .failed
    return .failed(AttemptFailure(error: error))
  }

  /// The cancellation request (`DELETE`) of the upload resource, when there is one.
  func cancellation() -> ResumableRequest? {
    location.map { ResumableRequest("DELETE", $0, headers: Self.baseHeaders) }
  }

  // MARK: Steps

  private static let baseHeaders = [HTTPField("Upload-Draft-Interop-Version", interopVersion)]

  private mutating func create() -> ResumableStep {
    let range = 0..<min(size, chunkSize)
    phase = .creating(range)
    location = nil
    announced = nil
    offset = 0
    return .send(
      ResumableRequest(
        "POST", creationURL,
        headers: Self.baseHeaders + [
          HTTPField("Upload-Complete", range.upperBound == size ? "?1" : "?0"),
          HTTPField("Upload-Length", String(size)),
          HTTPField("Content-Disposition", Self.disposition(fileName)),
        ], body: range))
  }

  private mutating func createAnew(_ head: ResponseHead) -> ResumableStep {
    guard !renewed else { return failHTTP(head) }
    renewed = true
    return create()
  }

  private mutating func locate() -> ResumableStep {
    guard let location else { return create() }
    phase = .locating
    return .send(ResumableRequest("HEAD", location, headers: Self.baseHeaders))
  }

  private mutating func next() -> ResumableStep {
    guard let location else { return create() }
    let range = offset..<min(size, offset + chunkSize)
    phase = .appending(range)
    return .send(
      ResumableRequest(
        "PATCH", location,
        headers: Self.baseHeaders + [
          HTTPField("Upload-Offset", String(offset)),
          HTTPField("Upload-Complete", range.upperBound == size ? "?1" : "?0"),
          HTTPField("Content-Type", "application/partial-upload"),
        ], body: range))
  }

  private mutating func finish() -> ResumableStep {
    offset = size
    phase = .finished
    return .finished
  }

  /// Takes the server's `max-append-size` (`Upload-Limit`) as the chunk size when smaller;
  /// whether it lowered the chunk size.
  @discardableResult
  private mutating func limit(_ head: ResponseHead) -> Bool {
    guard let most = ResumableFields.integers(head.value(for: "Upload-Limit"))["max-append-size"],
      most > 0, most < chunkSize
    else { return false }
    chunkSize = most
    return true
  }

  /// A `413` that names a smaller `max-append-size`: sent again with that.
  private mutating func shrink(_ head: ResponseHead) -> Bool {
    limit(head)
  }

  /// `inline` with the name in RFC 8187 form, which carries any character.
  static func disposition(_ name: String) -> String {
    let allowed = CharacterSet(
      charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$&+-.^_`|~")
    let encoded = name.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    return "inline; filename*=UTF-8''\(encoded)"
  }

  private mutating func fail(_ code: TransferError.Code, _ message: String) -> ResumableStep {
    phase = .failed
    return .failed(code, message)
  }

  /// The failure an error status means; `resumable` (a 5xx) leaves the upload to the next
  /// attempt, which asks for the offset.
  private mutating func failHTTP(_ head: ResponseHead, resumable: Bool = false) -> ResumableStep {
    phase = .failed
    return .failed(answer: head, retried: resumable)
  }
}
