import Dispatch
import Foundation

/// The feeder's side of a run: what each manifest entry needs before it waits for a slot.
extension EntryRunner {
  /// What the feeder does with one entry.
  enum Admission: Sendable {
    /// The entry needs a transfer.
    case job(EntryJob)
    /// The entry ended without one (already complete, or its local files are refused).
    case ended(Ending)
    /// Another haul process on the output directory holds the entry (`EntryLocks`): it is
    /// checked again once that one lets go.
    case held(ManifestEntry)

    /// `entry` ended with `error` before its transfer.
    static func failed(_ entry: ManifestEntry, _ error: TransferError) -> Admission {
      .ended(
        Ending(outcome: Scheduler.outcome(entry, error: error), sizeInManifest: entry.size != nil))
    }
  }

  /// Checks `entry` against the disk before it waits for a slot: a download already
  /// complete is skipped here, so skipping never waits behind transfers.
  func admission(for entry: ManifestEntry) -> Admission {
    guard entry.operation == .download else {
      return .job(EntryJob(entry, runner: self, local: nil, expectedBytes: nil))
    }
    let local: LocalDownload
    do throws(TransferError) {
      local = try localFiles(for: entry)
    } catch {
      return .failed(entry, error)
    }
    let refreshes = options.refresh && entry.size == nil && entry.expectedDigests.isEmpty
    var complete = alreadyComplete(entry, local)
    var claimed = false
    if complete == nil || refreshes {
      do throws(TransferError) {
        guard try directory.entryLocks.claim(entry.path) else { return .held(entry) }
      } catch {
        return .failed(entry, error)
      }
      claimed = true
      // Another process may have finished the file between the check and the claim.
      if complete == nil, directory.otherRuns.mayHaveWritten, local.destination() != nil {
        complete = alreadyComplete(entry, local, evenIfNew: true)
      }
    }
    if let (checked, size) = complete {
      if refreshes, let check = local.refreshCheck() {
        let job = EntryJob(
          entry, runner: self, local: local.holdsDescriptor ? nil : local, expectedBytes: nil)
        job.refresh = check
        return .job(job)
      }
      if claimed { directory.entryLocks.release(entry.path) }
      var outcome = EntryOutcome(entry, status: .skipped)
      outcome.sha256 = checked.digests[.sha256]
      outcome.digests = checked.digests
      outcome.verified = checked.verified
      return .ended(
        Ending(outcome: outcome, completedBytes: size, sizeInManifest: entry.size != nil))
    }
    // An entry in a subfolder holds that folder open: it waits without it.
    let kept = local.holdsDescriptor ? nil : local
    return .job(EntryJob(entry, runner: self, local: kept, expectedBytes: entry.size))
  }

  /// `admission(for:)` of each entry, in order; with `parallel`, spread over the cores
  /// (a rerun's skip checks read and hash every destination).
  func admissions(for entries: [ManifestEntry], parallel: Bool) -> [Admission] {
    let workers = parallel ? min(Self.cores, entries.count) : 1
    guard workers > 1 else { return entries.map(admission(for:)) }
    let results = AdmissionSlots(count: entries.count)
    DispatchQueue.concurrentPerform(iterations: workers) { worker in
      for index in stride(from: worker, to: entries.count, by: workers) {
        results.store(admission(for: entries[index]), at: index)
      }
    }
    return results.take()
  }

  /// The cores the skip checks spread over: read once, since Foundation reads the cgroup's
  /// files at each ask.
  private static let cores = ProcessInfo.processInfo.activeProcessorCount

  /// One result slot per entry, each written by exactly one worker of `admissions`: raw
  /// storage, so that writers of different slots never touch shared bookkeeping.
  // unchecked: each slot has one writer, and `take` reads them after every writer ended.
  private final class AdmissionSlots: @unchecked Sendable {
    private let slots: UnsafeMutableBufferPointer<Admission?>
    init(count: Int) {
      slots = .allocate(capacity: count)
      slots.initialize(repeating: nil)
    }
    deinit {
      slots.deinitialize()
      slots.deallocate()
    }
    func store(_ admission: Admission, at index: Int) { slots[index] = admission }
    func take() -> [Admission] { slots.map { $0! } }
  }

  func localFiles(for entry: ManifestEntry) throws(TransferError) -> LocalDownload {
    try LocalDownload(
      directory: directory, path: entry.path, durable: options.fsync,
      remoteTime: options.remoteTime, listedTime: entry.listedModified,
      recordsETag: options.refresh, finisher: finisher)
  }

  /// The destination's digests and what they matched (none when the entry expects none)
  /// and its length, when the entry is already complete and can be skipped; `nil`
  /// otherwise. Every expected digest (manifest and checksum files) is computed, in one
  /// read of the file, and must match.
  private func alreadyComplete(
    _ entry: ManifestEntry, _ local: LocalDownload, evenIfNew: Bool = false
  ) -> (AttemptSuccess, Int64)? {
    guard evenIfNew || !local.isNew,
      let destination = matching(
        local.destination(), size: entry.size, listedModified: entry.listedModified)
    else { return nil }
    let expected = entry.expectedDigests
    if !expected.isEmpty {
      guard
        let (digests, _) = local.digestsOfDestination(
          expected.algorithms, seed: entry.digestSeed, length: destination.size),
        case .success(let verified) = DownloadAttempt.check(entry, server: [], digests)
      else { return nil }
      return (
        AttemptSuccess(
          sha256: digests[.sha256], digests: digests.unseeded(entry.digestSeed),
          verified: verified),
        destination.size
      )
    }
    if entry.size == nil && local.mayHavePartial && local.partial() != nil { return nil }
    return (AttemptSuccess(), destination.size)
  }

  /// The length of the file a folder listing names at `path` (in normal form) with `size`
  /// and mtime `listedModified`, when it is complete in place by the rules of
  /// `alreadyComplete` for an entry without digests, so that it is skipped without an
  /// entry: one `fstatat` through its folder's descriptor. `nil` leaves the file to
  /// `admission(for:)`, which also looks for its partial, claims it or refuses its path: a
  /// file without a size in a folder that may hold a partial (or under `--refresh`, which
  /// re-checks such a file), one whose folder cannot be opened, and any not complete.
  func listedFileInPlace(_ path: String, size: Int64?, listedModified: Int?) -> Int64? {
    if size == nil && options.refresh { return nil }
    guard let (folder, leaf) = try? directory.folder(of: path),
      !(folder?.createdByRun ?? directory.startedEmpty),
      size != nil || !(folder?.heldPartials ?? true)
    else { return nil }
    return withExtendedLifetime(folder) {
      matching(
        FileStatus.lstat(folder?.descriptor ?? directory.descriptor, leaf), size: size,
        listedModified: listedModified)?.size
    }
  }

  /// `destination` when it is a regular file of `size` (when known) whose mtime is current
  /// for `listedModified` (when listed, `ListedTime`).
  private func matching(_ destination: FileStatus?, size: Int64?, listedModified: Int?)
    -> FileStatus?
  {
    guard let destination, destination.isRegularFile else { return nil }
    if let size, destination.size != size { return nil }
    if let listedModified,
      !ListedTime.isCurrent(
        local: destination.modified, listed: listedModified, remoteTime: options.remoteTime)
    {
      return nil
    }
    return destination
  }
}
