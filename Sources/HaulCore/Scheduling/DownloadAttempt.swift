#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One attempt to download an entry from one source, in the steps every path shares:
/// `prepare` opens the partial file (resuming it when its state allows) and builds the
/// request; once the exchange ended, `judge` reads the response and `complete` checks the
/// digest and puts the file in place. A transport's engine calls these steps on its thread
/// and a task calls them around an `await`; there is one implementation of each rule.
///
/// Owned by whoever runs the attempt, one thread at a time; `end()` closes its file.
final class DownloadAttempt: @unchecked Sendable {
  let entry: ManifestEntry
  let local: LocalDownload
  let request: TransferRequest
  let sink: DownloadSink
  private let fd: Int32

  private init(
    entry: ManifestEntry, local: LocalDownload, request: TransferRequest, sink: DownloadSink,
    fd: Int32
  ) {
    self.entry = entry
    self.local = local
    self.request = request
    self.sink = sink
    self.fd = fd
  }

  /// What `judge` found.
  enum Verdict: Error {
    /// The body is complete on disk; `complete` checks and finishes it.
    case received
    /// The partial file is not a prefix of the resource: start over without a range.
    case restart(String)
    /// The attempt failed.
    case failed(AttemptFailure)
  }

  /// Opens the partial file and builds the request for `base` (the entry's request to this
  /// source). `fresh` ignores any resumable prefix. A prefix that cannot be hashed back
  /// asks for a restart; other local errors fail the attempt.
  static func prepare(
    _ entry: ManifestEntry, base: TransferRequest, local: LocalDownload, counter: ProgressCounter,
    fresh: Bool, hashes: Bool
  ) -> Result<DownloadAttempt, Verdict> {
    if !fresh, let size = entry.size {
      do throws(TransferError) {
        try local.ensureRoom(for: size) { local.partial()?.size ?? 0 }
      } catch {
        return .failure(.failed(AttemptFailure(error: error)))
      }
    }
    let hasher = entry.sha256 != nil || hashes ? SHA256() : nil
    var state = ResumeState(
      url: RedactedURL.string(entry.url), sha256: entry.sha256, size: entry.size,
      validator: nil, total: nil)
    var resumeFrom: Int64 = 0
    let fd: Int32
    do throws(TransferError) {
      let (opened, existing) = try local.openOrCreatePartial()
      fd = opened
      if existing > 0, !fresh, let saved = local.readState(), saved.belongs(to: entry),
        saved.segments == nil, let validator = saved.validator,
        existing <= (saved.total ?? Int64.max), existing <= (entry.size ?? Int64.max)
      {
        resumeFrom = existing
        state.validator = validator
        state.total = saved.total
      } else if existing > 0, ftruncate(fd, 0) != 0 {
        let code = errno
        close(fd)
        throw FileErrors.error(code, "cannot truncate the partial file of \(entry.path)")
      }
      if resumeFrom > 0, let hasher {
        let hashed: Int64
        do throws(TransferError) {
          hashed = try LocalDownload.hash(fd: fd, upTo: resumeFrom, into: hasher)
        } catch {
          close(fd)
          throw error
        }
        if hashed != resumeFrom {
          close(fd)
          return .failure(.restart("partial file shrank"))
        }
      }
    } catch {
      return .failure(.failed(AttemptFailure(error: error)))
    }
    var request = base
    if resumeFrom > 0 {
      request.range = ByteRange(start: resumeFrom)
      request.ifRange = state.validator
    }
    let sink = DownloadSink(
      fd: fd, local: local, hasher: hasher, requested: request.range, expectedSize: entry.size,
      state: state, progress: counter)
    return .success(
      DownloadAttempt(entry: entry, local: local, request: request, sink: sink, fd: fd))
  }

  /// Reads how the exchange ended: writes out what the sink still holds (also after a
  /// failure, so the next attempt resumes from every byte received) and checks the body's
  /// length against the response and the manifest.
  func judge(_ result: Result<TransferResponse, TransferError>) -> Verdict {
    let response: TransferResponse
    switch result {
    case .success(let value):
      do throws(TransferError) {
        try sink.flush()
      } catch {
        return .failed(AttemptFailure(error: error, answered: true))
      }
      response = value
    case .failure(let error):
      if error.code == .sizeMismatch {
        local.discardPartial()
      } else {
        // Keep what arrived for the next attempt; the exchange's own error is the one told.
        try? sink.flush()
      }
      return .failed(AttemptFailure(error: error, answered: sink.plan != nil))
    }
    let length: Int64
    switch sink.plan {
    case .none, .discard:
      return .failed(AttemptFailure.http(response.head))
    case .restart:
      return .restart("the partial file is not a prefix of the resource")
    case .fail(let error):
      return .failed(AttemptFailure(error: error))
    case .complete(let total):
      length = total
    case .write(_, let total, _):
      if let total, sink.offset != total {
        return .failed(
          AttemptFailure(
            error: TransferError(
              .protocol, "the body ended after \(sink.offset) of \(total) bytes")))
      }
      length = sink.offset
    }
    if let size = entry.size, length != size {
      local.discardPartial()
      return .failed(
        AttemptFailure(
          error: TransferError(.sizeMismatch, "received \(length) bytes, expected \(size)")))
    }
    return .received
  }

  /// Whether the digest is ready without waiting (no background digest worker).
  var digestIsReady: Bool { sink.digestIsReady }

  /// Checks the digest (computed by the sink: `sink.digest()`, or `nil` when none was) and
  /// moves the file into place.
  func complete(digest: String?) -> Result<AttemptSuccess, AttemptFailure> {
    if sink.hashes, digest == nil {
      return .failure(
        AttemptFailure(error: TransferError(.io, "cannot read \(entry.path) back to hash it")))
    }
    if let expected = entry.sha256, digest != expected {
      local.discardPartial()
      return .failure(
        AttemptFailure(
          error: TransferError(
            .checksumMismatch, "SHA-256 \(digest ?? "not computed"), expected \(expected)")))
    }
    do throws(TransferError) {
      try local.finish(partial: fd)
    } catch {
      return .failure(AttemptFailure(error: error))
    }
    return .success(AttemptSuccess(sha256: digest))
  }

  /// Closes the partial file. Call once, when the attempt is over.
  func end() {
    close(fd)
  }
}
