/// Receives an answer of the S3 API that haul reads (a `ListObjectsV2` page, a multipart
/// upload's XML): the body of a 2xx in memory (up to `limit`), the start of a 400's for its
/// S3 error code (`S3ErrorBody`), nothing of any other. With `progress`, an upload's bytes
/// sent are counted there.
final class S3AnswerSink: ResponseSink, @unchecked Sendable {
  /// A page of 1,000 keys of 1,024 bytes each, escaped, stays below this.
  static let defaultLimit = 16 << 20
  /// A larger body fails the exchange.
  private let limit: Int
  private(set) var body: [UInt8] = []
  private(set) var errorBody: S3ErrorBody?
  private var keeps = false
  private let progress: ProgressCounter?
  private var reported: Int64 = 0

  init(progress: ProgressCounter? = nil, limit: Int = S3AnswerSink.defaultLimit) {
    self.progress = progress
    self.limit = limit
  }

  func receive(head: ResponseHead) throws(TransferError) -> Bool {
    body.removeAll()
    keeps = (200..<300).contains(head.status)
    errorBody = S3ErrorBody.captures(status: head.status) ? S3ErrorBody() : nil
    return keeps || errorBody != nil
  }

  func receive(body chunk: UnsafeRawBufferPointer) throws(TransferError) {
    guard keeps else {
      errorBody?.append(chunk)
      return
    }
    guard body.count + chunk.count <= limit else {
      throw TransferError(.protocol, "the answer is larger than \(limit >> 20) MiB")
    }
    body.append(contentsOf: chunk)
  }

  func sent(totalBytes: Int64) {
    guard let progress, totalBytes > reported else { return }
    progress.add(moved: totalBytes - reported)
    reported = totalBytes
  }
}
