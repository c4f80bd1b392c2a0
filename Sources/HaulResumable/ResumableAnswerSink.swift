import HaulCore

/// Receives the answers of a resumable upload's requests: the final head (its body is
/// discarded: the protocols say everything in header fields), the interim heads before it
/// (the draft's `104`), and the body bytes sent, counted into the entry's progress.
// unchecked: one transport thread at a time drives it, its owner reads it after the exchange.
final class ResumableAnswerSink: ResponseSink, @unchecked Sendable {
  private(set) var interim: [ResponseHead] = []
  private let progress: ProgressCounter
  private var reported: Int64 = 0

  init(progress: ProgressCounter) {
    self.progress = progress
  }

  func receive(interim head: ResponseHead) {
    if interim.count < 16 { interim.append(head) }
  }

  func receive(head: ResponseHead) throws(TransferError) -> Bool { false }

  func receive(body: UnsafeRawBufferPointer) throws(TransferError) {}

  func sent(totalBytes: Int64) {
    guard totalBytes > reported else { return }
    progress.add(moved: totalBytes - reported)
    progress.store(progress.present + totalBytes - reported)
    reported = totalBytes
  }
}
