#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One attempt to upload an entry's file to one source, in the steps every path shares
/// (see `AttemptSteps`): `prepare` builds the request from the file as it is now, and
/// `judge` reads the answer, where only the status matters. It is the sink of that answer
/// too: its body is discarded, but for the start of an error answer's, read by the run's
/// `ErrorBodyClassifier`.
///
/// Owned by whoever runs the attempt, one thread at a time.
// unchecked: one thread at a time runs the attempt (a loop, the finisher or a task).
final class UploadAttempt: AttemptSteps, ResponseSink, @unchecked Sendable {
  let request: TransferRequest
  let progress: ProgressCounter
  private var reported: Int64 = 0
  private let errorBodies: (any ErrorBodyClassifier)?
  private(set) var errorBody: ErrorBody?
  /// The file the body reopens (`UploadFile.path`), held open while the attempt lasts.
  private let file: UploadFile

  private init(
    request: TransferRequest, file: UploadFile, progress: ProgressCounter,
    errorBodies: (any ErrorBodyClassifier)?
  ) {
    self.request = request
    self.file = file
    self.progress = progress
    self.errorBodies = errorBodies
  }

  /// The attempt for `base` (the entry's request to this source) with `file` (opened
  /// through the output directory, `UploadFile`) as its body, counting the bytes sent into
  /// `counter`. `length`, when given, is the file's size as the entry began, looked up a
  /// moment before on the same thread; otherwise the open file is looked up now.
  /// `errorBodies` reads the start of an error answer's body.
  static func prepare(
    _ entry: ManifestEntry, base: TransferRequest, file: UploadFile, length: Int64?,
    counter: ProgressCounter, errorBodies: (any ErrorBodyClassifier)? = nil
  ) -> Result<UploadAttempt, AttemptSetback> {
    let size: Int64
    if let length {
      size = length
    } else {
      guard let now = file.size else {
        return .failure(
          .failed(AttemptFailure(error: FileErrors.error(errno, "cannot read \(entry.path)"))))
      }
      size = now
    }
    var request = base
    request.body = RequestBody(path: file.path, length: size)
    return .success(
      UploadAttempt(request: request, file: file, progress: counter, errorBodies: errorBodies))
  }

  var responseSink: any ResponseSink { self }

  /// How the exchange ended: a 2xx is received, anything else the attempt's failure (named
  /// by the server's error code in the captured error body, when there is one).
  func judge(_ result: Result<TransferResponse, TransferError>) -> AttemptVerdict {
    switch result {
    case .failure(let error):
      return .setback(.failed(AttemptFailure(error: error)))
    case .success(let response):
      guard (200..<300).contains(response.head.status) else {
        return .setback(.failed(AttemptFailure.http(response.head, body: errorBody)))
      }
      return .received
    }
  }

  /// An upload has no digest to wait for.
  var digestIsReady: Bool { true }

  /// An upload is sent whole each time: it continues nothing.
  var resumed: Bool { false }

  func completeNow() -> Result<AttemptSuccess, AttemptFailure> {
    .success(AttemptSuccess(sha256: nil))
  }

  func awaitDigest() async {}

  /// An upload writes nothing to the disk.
  var completionSyncs: Bool { false }

  /// An upload holds nothing open: its body is read by the transport.
  func end() {}

  func receive(head: ResponseHead) throws(TransferError) -> Bool {
    errorBody = ErrorBody.capturing(status: head.status, for: errorBodies)
    return errorBody != nil
  }

  func receive(body: UnsafeRawBufferPointer) throws(TransferError) {
    errorBody?.append(body)
  }

  func sent(totalBytes: Int64) {
    progress.store(totalBytes)
    if totalBytes > reported {
      progress.add(moved: totalBytes - reported)
      reported = totalBytes
    }
  }
}
