/// Receives an answer that haul reads whole: the body of a 2xx in memory (up to `limit`),
/// the start of an error answer's for the run's `ErrorBodyClassifier`, nothing of any other.
/// A listing page and an upload protocol's documents come this way. With `progress`, a
/// request body's bytes sent are counted there.
// unchecked: one transport thread at a time drives it, its owner reads it after the exchange.
package final class MemoryAnswerSink: ResponseSink, @unchecked Sendable {
  /// A larger body fails the exchange.
  private let limit: Int
  private let errorBodies: (any ErrorBodyClassifier)?
  /// The body of a 2xx answer.
  package private(set) var body: [UInt8] = []
  /// The start of an error answer's body, when the classifier reads its status.
  package private(set) var errorBody: ErrorBody?
  private var keeps = false
  /// Whether a body is read at all: not for a `HEAD`, whose `Content-Length` announces a
  /// body that never comes (corelibs' URLSession would wait for it).
  package var readsBody = true
  private let progress: ProgressCounter?
  private var reported: Int64 = 0

  /// A sink keeping at most `limit` bytes of a 2xx body, capturing error bodies for
  /// `errorBodies`, counting bytes sent into `progress`.
  package init(
    limit: Int, errorBodies: (any ErrorBodyClassifier)?, progress: ProgressCounter? = nil
  ) {
    self.limit = limit
    self.errorBodies = errorBodies
    self.progress = progress
  }

  package func receive(head: ResponseHead) throws(TransferError) -> Bool {
    body.removeAll()
    keeps = (200..<300).contains(head.status)
    errorBody = keeps ? nil : ErrorBody.capturing(status: head.status, for: errorBodies)
    return readsBody && (keeps || errorBody != nil)
  }

  package func receive(body chunk: UnsafeRawBufferPointer) throws(TransferError) {
    guard keeps else {
      errorBody?.append(chunk)
      return
    }
    guard body.count + chunk.count <= limit else {
      throw TransferError(.protocol, "the answer is larger than \(limit >> 20) MiB")
    }
    body.append(contentsOf: chunk)
  }

  package func sent(totalBytes: Int64) {
    guard let progress, totalBytes > reported else { return }
    progress.add(moved: totalBytes - reported)
    reported = totalBytes
  }
}
