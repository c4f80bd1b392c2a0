#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A segmented download's file from the moment its partial file is open for the round's
/// segments: once they all arrived, the attempt machine's `completeParts` finishes its digest
/// and checks it as one stream's is (`DownloadAttempt.finish`). `end()` closes it.
///
/// Owned by the task that runs the round, then the attempt; `complete` may run on a
/// `FileFinisher` thread while that task waits.
final class ReceivedParts: @unchecked Sendable {
  let entry: ManifestEntry
  let local: LocalDownload
  /// The round's resume state: the validator, the total, the server's digests.
  let state: ResumeState
  /// The partial file the segments write, and the digest that reads it back.
  let file: SegmentedFile

  init(entry: ManifestEntry, local: LocalDownload, state: ResumeState, file: SegmentedFile) {
    self.entry = entry
    self.local = local
    self.state = state
    self.file = file
  }

  /// Waits for the digest of the file the segments wrote, gapless up to its total, then
  /// checks and puts it in place; `syncing` runs the check and the rename (on the
  /// finisher's threads with `--fsync`).
  func complete(
    syncing: (@escaping @Sendable () -> Result<AttemptSuccess, AttemptFailure>) async
      -> Result<AttemptSuccess, AttemptFailure>
  ) async -> Result<AttemptSuccess, AttemptFailure> {
    let total = state.total ?? 0
    guard file.frontier == total else {
      return .failure(
        AttemptFailure(
          error: TransferError(
            .protocol, "segments ended at \(file.frontier) of \(total) bytes")))
    }
    let digests: DigestValues
    do throws(TransferError) {
      digests = try await file.digests()
    } catch {
      return .failure(AttemptFailure(error: error))
    }
    local.noteETag(state.validator)
    return await syncing { [self] in
      DownloadAttempt.finish(
        entry, local: local, fd: file.fd, server: state.server ?? [], computed: digests)
    }
  }

  /// Stops the digest if it still runs and closes the partial file. Call once.
  func end() {
    file.abandon()
    close(file.fd)
  }
}
