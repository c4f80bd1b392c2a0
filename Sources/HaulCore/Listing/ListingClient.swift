import Foundation

/// How a lister asks for a listing: through `EntryRunner.send`, the path every transfer
/// takes (the same interceptor signs it, the same redirect rules apply), without a slot,
/// with the run's and the folder entry's headers, and retried under the run's policy while
/// its failure is transient, through the retry loop every entry's attempts go through
/// (`AttemptLoop.retry`).
package struct ListingClient: Sendable {
  /// A listing answer larger than this fails its folder.
  package static let pageLimit = 64 << 20

  let runner: EntryRunner
  /// The folder entry being listed: its headers go with every request.
  package let entry: ManifestEntry

  /// The run's output directory, which entries' paths are relative to.
  package var outputDirectory: String { runner.options.outputDirectory }

  /// The run's `--depth`, `--include` and `--exclude`, for a lister that lays out more than
  /// the files it lists (a cache's links to them).
  package var folders: FolderOptions { runner.options.folders }

  /// A final answer: a 2xx with its body, or a status the lister asked to handle.
  package struct Answer: Sendable {
    package var head: ResponseHead
    /// The body of a 2xx (empty for any other status).
    package var body: [UInt8]
  }

  /// Sends `method` to `url` and returns the answer. A status in `handles` is returned as
  /// it is (a `PROPFIND` refused with 405); any other non-2xx fails, retried while transient.
  /// `stopsAtFolderRedirect`: a redirect to exactly `url` plus `/` is returned, not followed
  /// (`TransferRequest.stopsAtFolderRedirect`); `stopsAtRedirect`: any redirect is the
  /// answer (give its status in `handles`). An answer larger than `limit` fails.
  package func fetch(
    _ url: URL, method: String = "GET", headers: [HTTPField] = [], handles: Set<Int> = [],
    stopsAtFolderRedirect: Bool = false, stopsAtRedirect: Bool = false,
    limit: Int = ListingClient.pageLimit
  ) async throws(TransferError) -> Answer {
    var loop = AttemptLoop(sources: 1, policy: runner.retryPolicy)
    loop.begin()
    let result = await loop.retry { _, number -> AttemptLoop.Made<Answer> in
      guard !Task.isCancelled else {
        return .init(
          result: .failure(AttemptFailure(error: Scheduler.cancelledError)), attempts: number)
      }
      return .init(
        result: await fetchOnce(
          url, method: method, headers: headers, handles: handles,
          stopsAtFolderRedirect: stopsAtFolderRedirect, stopsAtRedirect: stopsAtRedirect,
          limit: limit),
        attempts: number)
    }
    return try result.mapError { $0.error }.get()
  }

  private func fetchOnce(
    _ url: URL, method: String, headers: [HTTPField], handles: Set<Int>,
    stopsAtFolderRedirect: Bool, stopsAtRedirect: Bool, limit: Int
  ) async -> Result<Answer, AttemptFailure> {
    let options = runner.options
    var request = TransferRequest(
      url: url, method: method, headers: options.headers + entry.headers + headers,
      stallTimeout: options.stallTimeout, connectTimeout: min(options.stallTimeout, 30))
    request.stopsAtFolderRedirect = stopsAtFolderRedirect
    request.stopsAtRedirect = stopsAtRedirect
    let sink = MemoryAnswerSink(limit: limit, errorBodies: options.errorBodies)
    sink.readsBody = method != "HEAD"
    let response: TransferResponse
    do throws(TransferError) {
      response = try await runner.send(request, for: entry, sink: sink)
    } catch {
      return .failure(AttemptFailure(error: error))
    }
    let status = response.head.status
    if (200..<300).contains(status) {
      return .success(Answer(head: response.head, body: sink.body))
    }
    if handles.contains(status) { return .success(Answer(head: response.head, body: [])) }
    return .failure(
      AttemptFailure.http(
        response.head, body: sink.errorBody,
        explained: options.refusals?.explain(response.head, for: url)))
  }
}
