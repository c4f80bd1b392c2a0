#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One attempt to upload an entry's file to one source, in the steps every path shares
/// (see `DownloadAttempt`): `prepare` builds the request from the file as it is now, and
/// `judge` reads the answer, where only the status matters.
enum UploadAttempt {
  /// The request for `base` (the entry's request to this source) with the file as its
  /// body, and the sink that counts the bytes sent; fails when the file is not a readable
  /// regular file. `length`, when given, is the file's size as the entry began, looked up
  /// a moment before on the same thread; otherwise the file is looked up now.
  static func prepare(
    _ entry: ManifestEntry, base: TransferRequest, path: String, length: Int64?,
    counter: ProgressCounter
  ) -> Result<(TransferRequest, UploadSink), AttemptFailure> {
    let size: Int64
    if let length {
      size = length
    } else {
      var info = stat()
      guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
        return .failure(
          AttemptFailure(error: FileErrors.error(errno, "cannot read \(entry.path)")))
      }
      size = Int64(info.st_size)
    }
    var request = base
    request.body = RequestBody(path: path, length: size)
    return .success((request, UploadSink(progress: counter)))
  }

  /// How the exchange ended: a 2xx is success, anything else the attempt's failure (named
  /// by the S3 error code of `sink`'s captured error body, when it has one).
  static func judge(
    _ result: Result<TransferResponse, TransferError>, sink: UploadSink?
  ) -> Result<AttemptSuccess, AttemptFailure> {
    switch result {
    case .failure(let error):
      return .failure(AttemptFailure(error: error))
    case .success(let response):
      guard (200..<300).contains(response.head.status) else {
        return .failure(AttemptFailure.http(response.head, body: sink?.errorBody))
      }
      return .success(AttemptSuccess(sha256: nil))
    }
  }
}

/// Receives the answer to an upload: only its status matters; its body is discarded, but
/// for the start of a 400's, read for an S3 error code (`S3ErrorBody`).
final class UploadSink: ResponseSink, @unchecked Sendable {
  let progress: ProgressCounter
  private var reported: Int64 = 0
  private(set) var errorBody: S3ErrorBody?

  init(progress: ProgressCounter) { self.progress = progress }

  func receive(head: ResponseHead) throws(TransferError) -> Bool {
    errorBody = S3ErrorBody.captures(status: head.status) ? S3ErrorBody() : nil
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
