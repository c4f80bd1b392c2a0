import Foundation

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
/// attempt. A `460` (checksum mismatch) fails the attempt as `checksum_mismatch`, retried.
struct TusMachine: Sendable {
  /// The protocol version every request names (`Tus-Resumable`).
  static let version = "1.0.0"

  enum Phase: Sendable, Hashable {
    case idle, discovering, creating, locating, appending(Range<Int64>), finished, failed
  }

  let creationURL: URL
  let size: Int64
  let fileName: String
  let chunkSize: Int64
  /// The upload on the server, once known.
  private(set) var location: URL?
  /// What the server acknowledged.
  private(set) var offset: Int64 = 0
  private(set) var phase = Phase.idle
  /// Whether `PATCH` requests carry `Upload-Checksum: sha1`.
  private(set) var checksums = false
  /// Whether this attempt already replaced an upload the server forgot.
  private var renewed = false
  private var conflicts = 0

  init(creationURL: URL, size: Int64, fileName: String, chunkSize: Int64) {
    self.creationURL = creationURL
    self.size = size
    self.fileName = fileName
    self.chunkSize = max(1, chunkSize)
  }

  /// Starts the attempt; `recorded` is the upload an earlier attempt or run created.
  mutating func start(recorded: URL?) -> ResumableStep {
    location = recorded
    phase = .discovering
    return .send(ResumableRequest("OPTIONS", creationURL, headers: Self.baseHeaders))
  }

  /// The answer to the request of the last `send` step.
  mutating func answered(_ head: ResponseHead) -> ResumableStep {
    let status = head.status
    let success = (200..<300).contains(status)
    switch phase {
    case .discovering:
      if success {
        checksums =
          ResumableFields.list(head.value(for: "Tus-Extension")).contains("checksum")
          && ResumableFields.list(head.value(for: "Tus-Checksum-Algorithm")).contains("sha1")
        if let versions = head.value(for: "Tus-Version"),
          !ResumableFields.list(versions).contains(Self.version)
        {
          return fail(.protocol, "the tus server speaks \(versions), not \(Self.version)")
        }
      }
      return location == nil ? create() : locate()
    case .creating:
      guard success else { return failHTTP(head) }
      guard let url = ResumableFields.location(head, from: creationURL) else {
        return fail(.protocol, "the tus server created the upload without a Location")
      }
      location = url
      offset = 0
      return next()
    case .locating:
      if status == 404 || status == 410 { return createAnew(head) }
      guard success else { return failHTTP(head) }
      guard let found = ResumableFields.integer(head.value(for: "Upload-Offset")) else {
        return fail(.protocol, "the tus server's HEAD gave no Upload-Offset")
      }
      if let length = ResumableFields.integer(head.value(for: "Upload-Length")), length != size {
        return createAnew(head)
      }
      guard found <= size else { return createAnew(head) }
      offset = found
      return next()
    case .appending(let sent):
      if status == 404 || status == 410 { return createAnew(head) }
      if status == 409 {
        conflicts += 1
        return conflicts > 3 ? failHTTP(head) : locate()
      }
      if status == 460 {
        return fail(
          .checksumMismatch, "the tus server found the chunk at \(sent.lowerBound) corrupted",
          transient: true)
      }
      guard success else { return failHTTP(head) }
      guard let found = ResumableFields.integer(head.value(for: "Upload-Offset")),
        found > sent.lowerBound, found <= sent.upperBound
      else {
        return fail(.protocol, "the tus server's PATCH answer gave no new Upload-Offset")
      }
      offset = found
      return next()
    case .idle, .finished, .failed:
      return fail(.protocol, "an answer arrived when no tus request was out")
    }
  }

  /// The request of the last `send` step failed without an answer.
  mutating func exchangeFailed(_ error: TransferError) -> ResumableStep {
    phase = .failed
    return .failed(AttemptFailure(error: error))
  }

  /// The termination request (`DELETE`) of the upload, when there is one.
  func termination() -> ResumableRequest? {
    location.map { ResumableRequest("DELETE", $0, headers: Self.baseHeaders) }
  }

  // MARK: Steps

  private static let baseHeaders = [HTTPField("Tus-Resumable", version)]

  private mutating func create() -> ResumableStep {
    phase = .creating
    location = nil
    let name = Data(fileName.utf8).base64EncodedString()
    return .send(
      ResumableRequest(
        "POST", creationURL,
        headers: Self.baseHeaders + [
          HTTPField("Upload-Length", String(size)),
          HTTPField("Upload-Metadata", "filename \(name)"),
        ]))
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

  /// The next chunk from `offset`, or the end.
  private mutating func next() -> ResumableStep {
    guard let location, offset < size else {
      phase = .finished
      return .finished
    }
    let range = offset..<min(size, offset + chunkSize)
    phase = .appending(range)
    return .send(
      ResumableRequest(
        "PATCH", location,
        headers: Self.baseHeaders + [
          HTTPField("Upload-Offset", String(offset)),
          HTTPField("Content-Type", "application/offset+octet-stream"),
        ], body: range, checksumSHA1: checksums))
  }

  private mutating func fail(
    _ code: TransferError.Code, _ message: String, transient: Bool = false
  ) -> ResumableStep {
    phase = .failed
    return .failed(code, message, transient: transient)
  }

  private mutating func failHTTP(_ head: ResponseHead) -> ResumableStep {
    phase = .failed
    return .failed(answer: head)
  }
}
