import Foundation

/// One attempt made in a task (the slow path's attempts, and entries the engine does not carry).
extension EntryRunner {
  // MARK: Download

  func download(_ job: EntryJob, from url: URL, into local: LocalDownload) async
    -> Result<Success, Failure>
  {
    let entry = job.entry
    // A refresh check is one conditional request: its answer is not split in segments.
    if job.refresh == nil, maySegment(entry),
      let result = await downloadSegmented(
        entry, from: url, into: local, counter: job.counter, job: job)
    {
      return result
    }
    var fresh = false
    while true {
      let attempt: DownloadAttempt
      switch DownloadAttempt.prepare(
        entry, base: request(entry, url), local: local, counter: job.counter, fresh: fresh,
        hashes: options.digestsWithoutChecksum, serverDigests: options.serverDigests,
        refresh: job.refresh)
      {
      case .success(let prepared):
        attempt = prepared
      case .failure(.failed(let failure)):
        return .failure(failure)
      case .failure(.restart(let reason)):
        if fresh { return .failure(Failure(error: TransferError(.protocol, reason))) }
        fresh = true
        continue
      case .failure(.received), .failure(.unchanged):
        preconditionFailure("prepare never reports a response")
      }
      defer { attempt.end() }
      let response: Result<TransferResponse, TransferError>
      do throws(TransferError) {
        response = .success(
          try await send(attempt.request, for: entry, sink: attempt.sink, job: job))
      } catch {
        response = .failure(error)
      }
      switch attempt.judge(response) {
      case .failed(let failure):
        return .failure(failure)
      case .restart(let reason):
        if fresh { return .failure(Failure(error: TransferError(.protocol, reason))) }
        fresh = true
        continue
      case .unchanged:
        return .success(Success(unchanged: true))
      case .received:
        let digests = attempt.sink.hashes ? await attempt.sink.digest() : nil
        return attempt.complete(digests: digests)
      }
    }
  }

  // MARK: Upload

  func upload(_ job: EntryJob, to url: URL) async -> Result<Success, Failure> {
    let entry = job.entry
    if let multipart = options.s3Multipart, goesInParts(entry, to: url) {
      return await S3MultipartUpload(
        runner: self, job: job, url: url, source: uploadPath(entry), options: multipart
      ).run()
    }
    switch UploadAttempt.prepare(
      entry, base: request(entry, url), path: uploadPath(entry), length: nil,
      counter: job.counter)
    {
    case .failure(let failure):
      return .failure(failure)
    case .success((let request, let sink)):
      do throws(TransferError) {
        return UploadAttempt.judge(
          .success(try await send(request, for: entry, sink: sink, job: job)), sink: sink)
      } catch {
        return UploadAttempt.judge(.failure(error), sink: sink)
      }
    }
  }
}
