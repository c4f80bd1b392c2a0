import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Segmented downloads (`--segments N`): a file of known size from a server that honours
/// ranges is fetched as N ranges in parallel into the one partial file, each guarded by the
/// validator (`If-Range`), each resumable on its own; every segment holds its own slot, so
/// segments count against `-j` and `--per-host`.
///
/// The file is hashed as a single stream is (SHA-256 when a report or events show it, and
/// every digest expected or declared; nothing when none is needed), by a thread of its own
/// that reads back the file's gapless prefix as the segments extend it (`SegmentedFile`);
/// the server's digests are those the probe's 206 declares (`Repr-Digest`, `Digest`,
/// `x-goog-hash`, `x-amz-checksum-sha256`; its `Content-Digest` covers the one byte only),
/// or from a server whose ranges carry none (`HeadDigestSource`), those a `HEAD` declares
/// (`headDigests`); kept in the resume state for a resumed download, which sends no probe.
extension EntryRunner {
  /// Whether `entry` may be split at all on `url` (its size, when known, is large enough).
  func maySegment(_ entry: ManifestEntry, on url: URL) -> Bool {
    segments(for: url, size: entry.size) > 1
      && (entry.size.map { $0 >= options.minSegmentSize } ?? true)
  }

  /// The ranges a download of `size` bytes from `url` goes in: its server's own default
  /// (`SchedulerOptions.segmentDefaults`), else `--segments`.
  func segments(for url: URL, size: Int64?) -> Int {
    options.segmentDefaults?.segments(for: url, size: size) ?? options.segments
  }

  /// One round of `entry`'s download from `url` in segments: the probe (or the saved state
  /// of a resume, unless `fresh`), then the segments. Called holding one slot for `url`'s
  /// host, which it gives back while segments take their own and takes again before
  /// returning. `.declined` when the file cannot be split (unknown size, too small, no range
  /// support, no validator): the attempt then fetches it as one stream. A round that ends
  /// in `.restart` has discarded its partial file; one that ends in `.received` hands its
  /// file over for the attempt machine's check (`ReceivedParts`). `job` counts a probe
  /// re-sent after a 401 as an attempt (the segments after it carry the refreshed
  /// credential).
  func segmentedRound(
    _ entry: ManifestEntry, from url: URL, into local: LocalDownload, counter: ProgressCounter,
    fresh: Bool, job: EntryJob? = nil
  ) async -> PartsRound {
    var state = ResumeState(for: entry)
    var resuming = false
    if !fresh, let saved = local.readState(), saved.belongs(to: entry),
      let segments = saved.segments, saved.validator != nil, let total = saved.total,
      segments.last?.end == total - 1, let partial = local.partial(), partial.isRegularFile
    {
      state = saved
      if !options.serverDigests { state.server = nil }
      resuming = true
    } else {
      switch await probe(entry, url, job: job) {
      case .none: return .declined
      case .failure(let failure)?: return .ended(.failure(failure))
      case .success(let head)?:
        guard let total = ContentRange(head.value(for: "Content-Range"))?.total,
          let validator = Validator.from(head), total >= options.minSegmentSize
        else { return .declined }
        if let size = entry.size, total != size {
          return .ended(
            .failure(
              Failure(
                error: TransferError(
                  .sizeMismatch, "server has \(total) bytes, expected \(size)"))))
        }
        state.validator = validator
        state.total = total
        state.segments = SegmentProgress.plan(
          total: total, count: segments(for: url, size: total))
        if options.serverDigests {
          var declared = ServerDigests.declared(by: head)
          if declared.isEmpty {
            declared = await headDigests(entry, url, validator: validator, job: job)
          }
          state.server = declared.isEmpty ? nil : declared
        }
      }
    }
    guard state.total != nil, let plan = state.segments else { return .declined }

    let fd: Int32
    do throws(TransferError) {
      fd = try local.openPartial(truncate: !resuming)
      if !resuming { try local.writeState(state) }
    } catch {
      return .ended(.failure(Failure(error: error)))
    }
    let hasher = DownloadAttempt.digests(
      for: entry, hashes: options.digestsWithoutChecksum, declared: state.server)
    let parts = ReceivedParts(
      entry: entry, local: local, state: state,
      file: SegmentedFile(fd: fd, segments: plan, hasher: hasher, counter: counter))

    let host = self.state.hostID(of: url)
    releaseSlot(host: host)
    let stop = await runSegments(
      entry, url, file: parts.file, state: state, local: local, counter: counter, host: host)
    let reacquired = await acquireSlot(host: host)
    guard let stop else {
      guard reacquired else {
        parts.end()
        return .ended(.failure(Failure(error: Scheduler.cancelledError)))
      }
      return .received(parts)
    }
    parts.end()
    if case .restart = stop { local.discardPartial() }
    return stop
  }

  /// Asks for byte 0 to learn the size and validator; `nil` when the server ignores ranges.
  private func probe(_ entry: ManifestEntry, _ url: URL, job: EntryJob?) async
    -> Result<ResponseHead, Failure>?
  {
    var request = request(entry, url)
    request.range = ProbeSink.requested
    let sink = ProbeSink()
    do throws(TransferError) {
      let response = try await send(request, for: entry, sink: sink, job: job)
      guard ResponseValidation.answersRange(response.head, requested: request.range) else {
        return .failure(
          AttemptFailure.http(
            response.head, explained: options.refusals?.explain(response.head, for: url)))
      }
      return .success(response.head)
    } catch {
      return sink.ignoresRanges ? nil : .failure(Failure(error: error))
    }
  }

  /// Runs every unfinished segment, each in its own slot, saving progress every second and
  /// whenever a segment ends; returns how the first segment to stop short ended the round
  /// (a failure, or a restart), if any did.
  private func runSegments(
    _ entry: ManifestEntry, _ url: URL, file: SegmentedFile, state: ResumeState,
    local: LocalDownload, counter: ProgressCounter, host: Int
  ) async -> PartsRound? {
    let validator = state.validator
    let total = state.total ?? 0
    let fsync = options.fsync
    @Sendable func save() {
      var state = state
      state.segments = file.progress
      if fsync { fdatasync(file.fd) }
      try? local.writeState(state)
    }
    return await withTaskGroup(of: PartsRound?.self) { group in
      for (index, segment) in file.progress.enumerated() where !segment.isComplete {
        group.addTask { [self] in
          guard await acquireSlot(host: host) else {
            return .ended(.failure(Failure(error: Scheduler.cancelledError)))
          }
          var request = request(entry, url)
          request.range = ByteRange(start: segment.next, end: segment.end)
          request.ifRange = validator
          let sink = SegmentSink(
            file: file, index: index, requested: request.range!, total: total, counter: counter,
            ifRange: validator)
          let failure: Failure?
          do throws(TransferError) {
            let response: TransferResponse
            do throws(TransferError) {
              response = try await send(request, for: entry, sink: sink)
            } catch {
              // What arrived before the failure is kept for the next attempt.
              try? sink.flush()
              throw error
            }
            try sink.flush()
            if case .write = sink.plan {
              failure =
                sink.offset == segment.end + 1
                ? nil
                : Failure(
                  error: TransferError(
                    .protocol, "a segment ended at \(sink.offset) of \(segment.end + 1)"))
            } else {
              failure = AttemptFailure.http(
                response.head,
                explained: options.refusals?.explain(response.head, for: entry.url))
            }
          } catch {
            failure = Failure(error: error)
          }
          releaseSlot(host: host)
          if let reason = sink.restartReason { return .restart(reason) }
          return failure.map { .ended(.failure($0)) }
        }
      }
      // A child of this task: cancelled and waited for when the round returns, so no save
      // lands after the file is finished.
      async let _ = {
        while (try? await Task.sleep(for: .seconds(1))) != nil {
          await syncing(save)
        }
      }()
      var first: PartsRound?
      for await result in group {
        if let result, first == nil {
          // The attempt has failed: the other segments stop too (their progress is saved
          // below), rather than fetch ranges of a file that may be restarted or abandoned.
          first = result
          group.cancelAll()
        }
        await syncing(save)
      }
      return first
    }
  }
}
