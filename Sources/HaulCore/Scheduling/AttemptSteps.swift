/// The steps of one attempt that the engine and a task both run, for a download
/// (`DownloadAttempt`) or an upload (`UploadAttempt`): the request to send and the sink of
/// its response, then the judgement of how the exchange ended, then the check that
/// completes it. `AttemptMachine` says which step comes next; the paths only execute them.
///
/// A class, so that an attempt costs one allocation, whichever path holds it, and moves
/// between them as one reference.
protocol AttemptSteps: AnyObject, Sendable {
  /// The request of the attempt's exchange, before any interceptor adapts it.
  var request: TransferRequest { get }
  /// Where the exchange delivers its response.
  var responseSink: any ResponseSink { get }
  /// Whether the attempt continues a partial file (its request asks for the bytes after it).
  var resumed: Bool { get }
  /// Reads how the exchange ended.
  func judge(_ result: Result<TransferResponse, TransferError>) -> AttemptVerdict
  /// Whether `completeNow` can finish the attempt without waiting for a worker thread.
  var digestIsReady: Bool { get }
  /// Waits, as long as it takes, for the digest a worker thread computes, so that
  /// `completeNow` has it.
  func awaitDigest() async
  /// Whether `completeNow` waits for the disk (`fsync`, with `--fsync`), so that it runs on
  /// the `FileFinisher`'s threads rather than a loop thread or Swift's pool.
  var completionSyncs: Bool { get }
  /// Checks and finishes a received attempt on the calling thread (once `digestIsReady`,
  /// or after `awaitDigest`).
  func completeNow() -> Result<AttemptSuccess, AttemptFailure>
  /// Releases what the attempt holds open. Called once, when it is over.
  func end()
}
