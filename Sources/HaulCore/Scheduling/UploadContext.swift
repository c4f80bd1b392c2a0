import Foundation

/// What an `UploadStrategy` reaches of the run for one upload of one entry to one source:
/// the entry, its file, the requests of the run (signed and redirected as every transfer's,
/// through `EntryRunner.send`), the run's slots, and the entry's progress.
package struct UploadContext: Sendable {
  let runner: EntryRunner
  let job: EntryJob
  /// Where the file goes.
  package let url: URL
  /// The file, opened through the output directory and held while the upload goes.
  let file: UploadFile
  /// The path that reopens the file (`UploadFile.path`), for request bodies and hashes.
  package var source: String { file.path }

  /// The entry being uploaded.
  package var entry: ManifestEntry { job.entry }
  /// The run's output directory, where `.haul/uploads/` lies.
  package var outputDirectory: String { runner.options.outputDirectory }
  /// The entry's progress: `store(expected:)` its size, `store(_:)` the bytes the server
  /// holds.
  package var progress: ProgressCounter { job.counter }
  /// The source file as this attempt begins, its size stored as the entry's expected
  /// bytes; the failure when it is not a readable regular file.
  package func inspectSource() -> Result<UploadSource, AttemptFailure> {
    let inspected = UploadSource.inspect(file, name: entry.path)
    if case .success(let file) = inspected { progress.store(expected: file.size) }
    return inspected
  }
  /// The run's reader of error bodies, for a strategy's own sinks (`MemoryAnswerSink`).
  package var errorBodies: (any ErrorBodyClassifier)? { runner.options.errorBodies }
  /// The failure of an attempt the run's interruption ended.
  package var cancelled: AttemptFailure { AttemptFailure(error: Scheduler.cancelledError) }

  /// A request to `target` with the run's and the entry's header fields, then `headers`,
  /// and the run's timeouts.
  package func request(_ target: URL, method: String, headers: [HTTPField] = [])
    -> TransferRequest
  {
    let options = runner.options
    return TransferRequest(
      url: target, method: method, headers: options.headers + entry.headers + headers,
      stallTimeout: options.stallTimeout, connectTimeout: min(options.stallTimeout, 30))
  }

  /// Sends `request` as every transfer is sent (the run's interceptor, redirects). A 401
  /// re-sent with a refreshed credential counts as an attempt of the entry when
  /// `countsAttempt`; a request that runs beside others of the same entry (a part) counts
  /// none.
  package func send(_ request: TransferRequest, sink: any ResponseSink, countsAttempt: Bool)
    async throws(TransferError) -> TransferResponse
  {
    try await runner.send(request, for: entry, sink: sink, job: countsAttempt ? job : nil)
  }

  /// The run's number for `url`'s host, which `acquireSlot` and `releaseSlot` take.
  package var host: Int { runner.state.hostID(of: url) }

  /// Waits for a slot for `host` (`-j`, `--per-host`); `false` when the run is cancelled.
  package func acquireSlot(host: Int) async -> Bool {
    await runner.acquireSlot(host: host)
  }

  /// Gives back a slot for `host`.
  package func releaseSlot(host: Int) {
    runner.releaseSlot(host: host)
  }
}
