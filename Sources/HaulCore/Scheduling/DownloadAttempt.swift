#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One attempt to download an entry from one source, in the steps every path shares:
/// `prepare` opens the partial file (resuming it when its state allows) and builds the
/// request; once the exchange ended, `judge` reads the response and `complete` checks every
/// expected digest (the manifest's, the checksum files', the server's) and puts the file in
/// place. A transport's engine calls these steps on its thread
/// and a task calls them around an `await`; there is one implementation of each rule.
///
/// Owned by whoever runs the attempt, one thread at a time; `end()` closes its file.
final class DownloadAttempt: AttemptSteps, @unchecked Sendable {
  let entry: ManifestEntry
  let local: LocalDownload
  let request: TransferRequest
  let sink: DownloadSink
  /// Whether the request is a `--refresh` check, which a 304 answers.
  let refreshing: Bool
  /// Tells why the source refused the request, where the status alone does not.
  private let refusals: (any RefusalExplainer)?
  private let fd: Int32
  /// The digests `awaitDigest` waited for (`.some(nil)`: none could be computed).
  private var awaited: DigestValues??

  private init(
    entry: ManifestEntry, local: LocalDownload, request: TransferRequest, sink: DownloadSink,
    fd: Int32, refreshing: Bool, refusals: (any RefusalExplainer)?
  ) {
    self.entry = entry
    self.local = local
    self.request = request
    self.sink = sink
    self.fd = fd
    self.refreshing = refreshing
    self.refusals = refusals
  }

  /// Opens the partial file and builds the request for `base` (the entry's request to this
  /// source). `fresh` ignores any resumable prefix. A prefix that cannot be hashed back
  /// asks for a restart; other local errors fail the attempt. With `refresh`, the request
  /// asks whether the file in place changed (`RefreshCheck.fields`).
  ///
  /// The digests computed are the entry's expected ones, SHA-256 too when `hashes` (the
  /// digest is shown), and with `serverDigests` those a resumed partial's first response
  /// declared; the sink adds what the response declares. With none of these nothing is
  /// hashed, which matters on small files. `refusals` tells why an error answer refused
  /// it. `errorBodies` reads the start of an error
  /// answer's body.
  static func prepare(
    _ entry: ManifestEntry, base: TransferRequest, local: LocalDownload, counter: ProgressCounter,
    fresh: Bool, hashes: Bool, serverDigests: Bool, refresh: RefreshCheck? = nil,
    errorBodies: (any ErrorBodyClassifier)? = nil, refusals: (any RefusalExplainer)? = nil
  ) -> Result<DownloadAttempt, AttemptSetback> {
    if !fresh, let size = entry.size {
      do throws(TransferError) {
        try local.ensureRoom(for: size) { local.partial()?.size ?? 0 }
      } catch {
        return .failure(.failed(AttemptFailure(error: error)))
      }
    }
    var hasher: DigestSet?
    var state = ResumeState(for: entry)
    var resumeFrom: Int64 = 0
    let fd: Int32
    do throws(TransferError) {
      let (opened, existing) = try local.openOrCreatePartial(expecting: entry.size)
      fd = opened
      if existing > 0, !fresh, let saved = local.readState(), saved.belongs(to: entry),
        saved.segments == nil, let validator = saved.validator,
        existing <= (saved.total ?? Int64.max), existing <= (entry.size ?? Int64.max)
      {
        resumeFrom = existing
        state.validator = validator
        state.total = saved.total
        if serverDigests { state.server = saved.server }
      } else if existing > 0, ftruncate(fd, 0) != 0 {
        let code = errno
        close(fd)
        throw FileErrors.error(code, "cannot truncate the partial file of \(entry.path)")
      }
      hasher = digests(for: entry, hashes: hashes, declared: state.server)
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
    if let refresh { request.conditions = refresh.fields }
    let sink = DownloadSink(
      fd: fd, local: local, hasher: hasher, requested: request.range, expectedSize: entry.size,
      state: state, progress: counter, readsServerDigests: serverDigests,
      errorBodies: errorBodies)
    return .success(
      DownloadAttempt(
        entry: entry, local: local, request: request, sink: sink, fd: fd,
        refreshing: refresh != nil, refusals: refusals))
  }

  /// Reads how the exchange ended: writes out what the sink still holds (also after a
  /// failure, so the next attempt resumes from every byte received) and checks the body's
  /// length against the response and the manifest. A refresh check answered 304 removes
  /// the partial file (and any state a failed earlier attempt left): the file in place is
  /// the current version.
  func judge(_ result: Result<TransferResponse, TransferError>) -> AttemptVerdict {
    let response: TransferResponse
    switch result {
    case .success(let value):
      do throws(TransferError) {
        try sink.flush()
      } catch {
        return .setback(.failed(AttemptFailure(error: error, answered: true)))
      }
      response = value
    case .failure(let error):
      if error.code == .sizeMismatch {
        local.discardPartial()
      } else {
        // Keep what arrived for the next attempt; the exchange's own error is the one told.
        try? sink.flush()
      }
      return .setback(.failed(AttemptFailure(error: error, answered: sink.plan != nil)))
    }
    let length: Int64
    switch sink.plan {
    case .none, .discard:
      if refreshing, response.head.status == 304 {
        local.discardPartial()
        return .unchanged
      }
      return .setback(
        .failed(
          AttemptFailure.http(
            response.head, body: sink.errorBody,
            explained: refusals?.explain(response.head, for: entry.url))))
    case .restart:
      return .setback(.restart("the partial file is not a prefix of the resource"))
    case .fail(let error):
      return .setback(.failed(AttemptFailure(error: error)))
    case .complete(let total):
      length = total
    case .write(_, let total, _):
      if let total, sink.offset != total {
        return .setback(
          .failed(
            AttemptFailure(
              error: TransferError(
                .protocol, "the body ended after \(sink.offset) of \(total) bytes"))))
      }
      length = sink.offset
    }
    if let size = entry.size, length != size {
      local.discardPartial()
      return .setback(
        .failed(
          AttemptFailure(
            error: TransferError(.sizeMismatch, "received \(length) bytes, expected \(size)"))))
    }
    return .received
  }

  /// The digests a download of `entry` computes from its first byte: the expected ones,
  /// SHA-256 when `hashes`, and the algorithms of `declared` (a server's, kept in the resume
  /// state), with the entry's `digestSeed`; `nil` when there is none.
  static func digests(for entry: ManifestEntry, hashes: Bool, declared: [ExpectedDigest]?)
    -> DigestSet?
  {
    let expected = entry.expectedDigests
    let declared = declared ?? []
    guard hashes || !expected.isEmpty || !declared.isEmpty else { return nil }
    // Lazily, so that choosing the algorithms allocates nothing.
    return DigestSet(
      DigestAlgorithm.allCases.lazy.filter { algorithm in
        expected[algorithm] != nil || (hashes && algorithm == .sha256)
          || declared.contains { $0.algorithm == algorithm }
      }, seed: entry.digestSeed)
  }

  /// Whether the digest is ready without waiting (no background digest worker).
  var digestIsReady: Bool { sink.digestIsReady }

  /// Checks the digests (computed by the sink: `sink.digest()`, or `nil` when none was)
  /// against every one expected, the entry's and the server's, and moves the file into
  /// place (`finish`).
  func complete(digests: DigestValues?) -> Result<AttemptSuccess, AttemptFailure> {
    if sink.hashes, digests == nil {
      return .failure(
        AttemptFailure(error: TransferError(.io, "cannot read \(entry.path) back to hash it")))
    }
    return Self.finish(
      entry, local: local, fd: fd, server: sink.serverDigests, computed: digests ?? DigestValues())
  }

  /// The check that completes every download, one stream's or a segmented one's
  /// (`ReceivedParts`): `computed` against every digest expected (`check`), then the
  /// partial file `fd` moved into place. A mismatch discards the partial file. The digests
  /// told are the file's own (`DigestValues.unseeded`).
  static func finish(
    _ entry: ManifestEntry, local: LocalDownload, fd: Int32, server: [ExpectedDigest],
    computed: DigestValues
  ) -> Result<AttemptSuccess, AttemptFailure> {
    let verified: [String]
    switch check(entry, server: server, computed) {
    case .success(let sources):
      verified = sources
    case .failure(let mismatch):
      local.discardPartial()
      return .failure(AttemptFailure(error: mismatch.transferError))
    }
    do throws(TransferError) {
      try local.finish(partial: fd)
    } catch {
      return .failure(AttemptFailure(error: error))
    }
    return .success(
      AttemptSuccess(
        sha256: computed[.sha256], digests: computed.unseeded(entry.digestSeed),
        verified: verified))
  }

  /// Checks `computed` against `entry`'s expected digests, then against `server`'s: the
  /// sources verified, or the first mismatch.
  static func check(_ entry: ManifestEntry, server: [ExpectedDigest], _ computed: DigestValues)
    -> Result<[String], DigestMismatch>
  {
    let own = entry.expectedDigestList
    guard !own.isEmpty || !server.isEmpty else { return .success([]) }
    return ExpectedDigest.verify(server.isEmpty ? own : own + server, against: computed)
  }

  var responseSink: any ResponseSink { sink }

  var resumed: Bool { request.range != nil }

  func completeNow() -> Result<AttemptSuccess, AttemptFailure> {
    complete(digests: awaited ?? sink.inlineDigest())
  }

  func awaitDigest() async {
    awaited = sink.hashes ? await sink.digest() : nil
  }

  var completionSyncs: Bool { local.durable }

  /// Closes the partial file. Call once, when the attempt is over.
  func end() {
    close(fd)
  }
}
