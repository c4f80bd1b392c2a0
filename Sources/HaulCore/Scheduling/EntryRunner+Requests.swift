import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The requests of an entry's exchanges, and how a task sends them.
extension EntryRunner {
  /// The size of an upload's file (a symlink followed while it stays in the output
  /// directory, as `LocalTree` resolves it), or nil when it is no regular file there.
  func uploadLength(_ entry: ManifestEntry) -> Int64? {
    guard entry.operation == .upload else { return nil }
    return (try? uploadFile(entry))?.size
  }

  /// Whether an upload of `entry` to `url` goes in parts, in a task: an upload strategy
  /// (a resumable protocol, a multipart upload) takes it. A file that cannot be opened goes
  /// whole, where its attempt fails with the reason.
  func goesInParts(_ entry: ManifestEntry, to url: URL) -> Bool {
    guard entry.operation == .upload, let file = try? uploadFile(entry) else { return false }
    return uploadStrategy(entry, to: url, source: file.path) != nil
  }

  /// The first of the run's upload strategies (`SchedulerOptions.uploadStrategies`) that
  /// takes `entry`'s upload to `url`.
  func uploadStrategy(_ entry: ManifestEntry, to url: URL, source: String)
    -> (any UploadStrategy)?
  {
    options.uploadStrategies.first { $0.takes(entry, to: url, source: source) }
  }

  /// The file `entry` uploads, opened through the output directory's descriptor (never
  /// by a path string under it): `path_refused` when a symlink on the way leads out.
  func uploadFile(_ entry: ManifestEntry) throws(TransferError) -> UploadFile {
    try UploadFile(entry.path, in: directory)
  }

  /// The request of one exchange of `entry` with `url`: the run's and the entry's headers,
  /// and for a download `Want-Repr-Digest` (unless `--no-server-digests`, or a header of that
  /// name is given).
  func request(_ entry: ManifestEntry, _ url: URL) -> TransferRequest {
    let headers: [HTTPField]
    if entry.operation == .download, options.serverDigests,
      !entry.headers.contains(where: { $0.hasName(ServerDigests.wantReprDigest.name) })
    {
      headers = entry.headers.isEmpty ? downloadHeaders : downloadHeaders + entry.headers
    } else {
      headers = options.headers + entry.headers
    }
    return TransferRequest(
      url: url, method: entry.method, headers: headers,
      stallTimeout: options.stallTimeout, connectTimeout: min(options.stallTimeout, 30))
  }

  /// Sends `request` (adapted by the interceptor, redirects followed); a 401 is sent once
  /// more when the interceptor refreshed its credential, without using up a retry. The
  /// re-sent request is an attempt of `job` all the same (docs/behaviour.md, "Retry": an
  /// attempt is one try to move the entry's bytes): it is counted and announced with a
  /// `retry` event.
  func send(
    _ request: TransferRequest, for entry: ManifestEntry, sink: any ResponseSink,
    job: EntryJob? = nil
  ) async throws(TransferError) -> TransferResponse {
    guard let interceptor = options.interceptor else {
      return try await Exchange.perform(
        request, on: transport, sink: sink, state: options.httpState)
    }
    var adapted = request
    try await interceptor.adapt(&adapted, for: entry)
    let response = try await Exchange.perform(
      adapted, on: transport, sink: sink, state: options.httpState)
    guard response.head.status == 401, try await interceptor.retry(after: adapted, for: entry)
    else { return response }
    if let job {
      events(.retry(job.info, attempt: job.attempts + 1, code: .http(401), delay: 0))
      job.attempts += 1
    }
    adapted = request
    try await interceptor.adapt(&adapted, for: entry)
    return try await Exchange.perform(adapted, on: transport, sink: sink, state: options.httpState)
  }
}
