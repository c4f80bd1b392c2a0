import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The local files of one download: the destination, the partial file beside it
/// (`NAME.haul-partial`) and its resume state (`NAME.haul-state`), named by `PartialNames`
/// so that they fit the file system's name limit, all reached through the parent folder's
/// descriptor without following symlinks.
///
/// Owned by the one task running the entry; a segmented download's periodic state saver may
/// call `writeState` concurrently, and with a finisher a state is written on its thread
/// (`recordState`), so state writes, `finish` and `discardPartial` are serialized by a lock,
/// and a state write after `finish` is dropped (it would outlive the finished file).
package final class LocalDownload: Sendable {
  package let path: String
  /// Kept alive while `parent` may be its own root descriptor.
  private let directory: OutputDirectory
  /// The file's folder below the root, `nil` for a file directly in the root.
  private let folder: FolderHandle?
  let parent: Int32
  let leaf: String
  /// Whether the finished file and its rename are synced to the disk (`--fsync`).
  package let durable: Bool
  /// Whether a finished file gets the server's `Last-Modified` as its mtime.
  private let remoteTime: Bool
  /// The time a folder listing gave the file, the mtime when no answer gives one.
  private let listedTime: Int?
  /// The final response's `Last-Modified` (else `listedTime`), noted by the sink as the head
  /// arrives.
  private let lastModified: Mutex<Int?>
  /// Whether a finished file keeps its ETag in `RefreshCheck.etagAttribute` (`--refresh`).
  let recordsETag: Bool
  /// The final response's ETag, noted by the sink when `recordsETag`.
  let etag = Mutex<String?>(nil)
  /// The state file's bookkeeping, under one lock with every state write and `finish`.
  private struct StateFile {
    /// Whether `finish` put the file in place; guards every state write.
    var finished = false
    /// Whether a state file may be on disk (one was found or written), so that `finish`
    /// removes it; a download that never had one saves the `unlinkat`.
    var mayExist = false
    /// The state `recordState` queued for the finisher and not yet written.
    var queued: ResumeState?
    /// Whether a finisher item is on its way to write what is queued.
    var writing = false
    /// Whether the partial file open now has no name yet (`openUnnamedPartial`).
    var unnamed = false
    /// Whether a partial of this entry got a name in this run: its next attempts look for it.
    var named = false
  }
  private let stateFile = Mutex(StateFile())
  /// Where `recordState` writes states (with `--fsync`, whose state writes wait for the
  /// disk); `nil`: at once.
  private let finisher: FileFinisher?

  /// The side files' names in `parent`, made once: every open, check and rename uses them.
  package let names: PartialNames
  package var partialName: String { names.partial }
  package var stateName: String { names.state }

  /// Opens the parent folder of `path` in `directory`, creating folders as needed.
  /// `durable` (`--fsync`) makes the finished file and its rename survive a power cut;
  /// `recordsETag` (`--refresh`) keeps the server's ETag with it. With `remoteTime`, a
  /// `listedTime` (a listing's mtime, seconds since 1970) is the finished file's mtime
  /// unless its answer gives a `Last-Modified`. With a `finisher`, `recordState` writes on
  /// its threads.
  package init(
    directory: OutputDirectory, path: String, durable: Bool, remoteTime: Bool = false,
    listedTime: Int? = nil, recordsETag: Bool = false, finisher: FileFinisher? = nil
  ) throws(TransferError) {
    self.finisher = finisher
    self.remoteTime = remoteTime
    self.listedTime = remoteTime ? listedTime : nil
    lastModified = Mutex(self.listedTime)
    self.recordsETag = recordsETag
    try Self.checkNameLength(path, limit: directory.nameLimit)
    (folder, leaf) = try directory.folder(of: path)
    parent = folder?.descriptor ?? directory.descriptor
    names = PartialNames(leaf: leaf, limit: directory.nameLimit)
    self.directory = directory
    self.path = path
    self.durable = durable
  }

  /// Refuses a destination whose name (its last segment) is longer than the folder's file
  /// system allows: no file could ever take it, so the entry fails before any folder is made
  /// or any byte asked for, and leaves nothing behind.
  static func checkNameLength(_ path: String, limit: Int) throws(TransferError) {
    var path = path
    let length = path.withUTF8 { bytes in
      bytes.count - ((bytes.lastIndex(of: UInt8(ascii: "/")) ?? -1) + 1)
    }
    guard length > limit else { return }
    throw TransferError(
      .pathRefused,
      "path \(path) names a file of \(length) bytes, over the file system's limit of \(limit)")
  }

  /// Whether this holds a descriptor beside the output directory's (its folder, for a path
  /// in a subfolder), which may be the last reference that keeps that folder open.
  package var holdsDescriptor: Bool { folder != nil }

  /// Whether the destination's folder holds only files this run writes (this run created
  /// it, or it is the output directory and that was empty at start): no file of this path
  /// was there before the run, so there is nothing to skip and nothing to resume.
  package var isNew: Bool { folder?.createdByRun ?? directory.startedEmpty }

  /// The destination's metadata (a symlink is reported as such, never followed).
  package func destination() -> FileStatus? { FileStatus.lstat(parent, leaf) }

  /// The partial file's metadata.
  package func partial() -> FileStatus? { FileStatus.lstat(parent, partialName) }

  /// Whether a partial file may be pending: `false` when the destination's folder (below the
  /// output directory) held no partial at all when first looked at
  /// (`FolderHandle.heldPartials`), so that `partial()` need not be asked.
  package var mayHavePartial: Bool { folder?.heldPartials ?? true }

  /// The resume state, or `nil` when absent or damaged.
  package func readState() -> ResumeState? {
    let fd = openat(parent, stateName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    let found = fd >= 0 || errno != ENOENT
    if found { stateFile.withLock { $0.mayExist = true } }
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes = [UInt8](repeating: 0, count: 64 * 1024)
    let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    guard count > 0 else { return nil }
    return ResumeState.decode(Array(bytes[..<count]))
  }

  /// Replaces the resume state atomically (a temporary file renamed over it); does nothing
  /// once the file is finished.
  package func writeState(_ state: ResumeState) throws(TransferError) {
    try stateFile.withLock { file throws(TransferError) in
      guard !file.finished else { return }
      file.mayExist = true
      try replaceState(state)
    }
  }

  /// Records the state of a body about to be written: at once (`writeState`), or with a
  /// finisher queued for its thread, so that a loop thread does not wait for the state's
  /// `fsync`. The latest state queued wins; one still queued when the file is finished or
  /// discarded is dropped. A queued write that fails leaves no state, and the next run
  /// starts the file over: the state only ever saves a fetch.
  package func recordState(_ state: ResumeState) throws(TransferError) {
    guard let finisher else { return try writeState(state) }
    let submits = stateFile.withLock { file -> Bool in
      guard !file.finished else { return false }
      file.queued = state
      guard !file.writing else { return false }
      file.writing = true
      return true
    }
    if submits { finisher.submit { [self] in writeQueuedState() } }
  }

  /// Writes what `recordState` queued, on the finisher's thread, holding the lock so that
  /// no `finish` or discard comes between.
  private func writeQueuedState() {
    stateFile.withLock { file in
      while let state = file.queued, !file.finished {
        file.queued = nil
        file.mayExist = true
        try? replaceState(state)
      }
      file.queued = nil
      file.writing = false
    }
  }

  /// Removes the state before a body from the first byte is written: it describes bytes
  /// the partial no longer holds, and a queued new state may land after the body's first
  /// write. Costs nothing when no state was found or written.
  package func dropState() {
    stateFile.withLock { file in
      file.queued = nil
      if file.mayExist { unlinkat(parent, stateName, 0) }
    }
  }

  private func replaceState(_ state: ResumeState) throws(TransferError) {
    let temporary = names.stateTemporary
    let fd = openat(
      parent, temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o666)
    guard fd >= 0 else { throw FileErrors.error(errno, "cannot write resume state of \(path)") }
    let bytes = state.encoded()
    let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    let code = errno
    if durable { fsync(fd) }
    close(fd)
    guard written == bytes.count else {
      unlinkat(parent, temporary, 0)
      throw FileErrors.error(written < 0 ? code : ENOSPC, "cannot write resume state of \(path)")
    }
    guard renameat(parent, temporary, parent, stateName) == 0 else {
      throw FileErrors.error(errno, "cannot write resume state of \(path)")
    }
  }

  /// Fails with `disk_full` when the file system of the destination has fewer than `bytes`
  /// bytes free (for unprivileged use), less what is `present` already: a download of known
  /// size that cannot fit fails before its request is sent, instead of after filling the
  /// disk. `present` is asked only when the whole would not fit, so the common case costs
  /// no look at the partial file, and while the folder's `RoomBudget` covers the file, no
  /// `fstatvfs` either.
  package func ensureRoom(for bytes: Int64, present: () -> Int64 = { 0 }) throws(TransferError) {
    guard bytes > 0 else { return }
    let budget = folder?.room ?? directory.room
    if budget.take(bytes) { return }
    var info = statvfs()
    guard fstatvfs(parent, &info) == 0 else { return }
    let (free, overflow) = UInt64(info.f_bavail).multipliedReportingOverflow(
      by: UInt64(info.f_frsize))
    guard !overflow, free < UInt64(bytes) else {
      budget.refill(free: overflow ? UInt64.max : free, taking: bytes)
      return
    }
    let needed = bytes - min(max(0, present()), bytes)
    guard free < UInt64(needed) else { return }
    throw TransferError(
      .diskFull, "\(path) needs \(needed) more bytes, the disk has \(free) free")
  }

  /// Opens the partial file for reading and writing, creating it, and emptying it when
  /// `truncate`. Refuses a symlink or anything but a regular file in its place.
  package func openPartial(truncate: Bool) throws(TransferError) -> Int32 {
    let flags = O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (truncate ? O_TRUNC : 0)
    let (fd, code) = DirectoryEntryLock.withLock(taking: directory.takesTurnsAddingNames) {
      let fd = openat(parent, partialName, flags, 0o666)
      return (fd, errno)
    }
    guard fd >= 0 else { throw FileErrors.error(code, "cannot open partial file of \(path)") }
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
      close(fd)
      throw TransferError(.pathRefused, "\(path): the partial file is not a regular file")
    }
    return fd
  }

  /// Opens the partial file for reading and writing, creating it when there is none, and
  /// returns it with the number of bytes it already held (0 for a new file). A body of
  /// known `size` that `openUnnamedPartial` takes gets a partial file without a name.
  ///
  /// A new file is created with `O_EXCL`, which guarantees a regular file of haul's own: the
  /// common case (nothing to resume) costs one `openat` and no look at the file or its resume
  /// state. An existing one is opened without following a symlink and refused unless it is a
  /// regular file.
  package func openOrCreatePartial(expecting size: Int64? = nil) throws(TransferError) -> (
    fd: Int32, existing: Int64
  ) {
    if let fd = openUnnamedPartial(expecting: size) { return (fd, 0) }
    let flags = O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC
    let (created, code) = DirectoryEntryLock.withLock(taking: directory.takesTurnsAddingNames) {
      // `withCString` passes the name without the array a converted argument allocates.
      let fd = partialName.withCString { openat(parent, $0, flags, 0o666) }
      return (fd, errno)
    }
    if created >= 0 { return (created, 0) }
    guard code == EEXIST else {
      throw FileErrors.error(code, "cannot open partial file of \(path)")
    }
    let fd = try openPartial(truncate: false)
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      close(fd)
      throw FileErrors.error(errno, "cannot open partial file of \(path)")
    }
    return (fd, Int64(info.st_size))
  }

  /// The largest body whose partial file may start without a name: a body of known size up
  /// to `DownloadSink.gatherSize` is gathered in memory and written in one piece at its end,
  /// so its named partial would hold nothing a crash could resume.
  package static let unnamedLimit = Int64(DownloadSink.gatherSize)

  /// A partial file without a name (`O_TMPFILE`) for a body of known `size` up to
  /// `unnamedLimit`, where no partial of this path can exist (its folder is new to the run or
  /// held none, no attempt of this run named one, and no other run has been in the output
  /// directory since this one joined, which may have left one): the finished file is linked into
  /// place (`finish`) instead of created under the partial's name and renamed, one name
  /// added to the folder instead of two changes. It gets the partial's name before bytes
  /// that leave its body unfinished are written (`namePartial`), so that what a failed
  /// attempt keeps is found as before. `nil` where it does not apply or the folder's file
  /// system refuses (then never again in this run).
  private func openUnnamedPartial(expecting size: Int64?) -> Int32? {
    guard let size, size <= Self.unnamedLimit, !recordsETag, directory.takesUnnamedFiles,
      isNew || !mayHavePartial, !stateFile.withLock({ $0.named }),
      !directory.otherRuns.mayHaveWritten
    else { return nil }
    let fd = openat(parent, ".", O_RDWR | Self.unnamedFile | O_CLOEXEC, 0o666)
    guard fd >= 0 else {
      directory.refusesUnnamedFiles()
      return nil
    }
    stateFile.withLock { $0.unnamed = true }
    return fd
  }

  /// Gives the open partial file `fd` its name (`NAME.haul-partial`) when it has none yet;
  /// the sink calls it before bytes that leave the body unfinished are written, so that a
  /// next attempt or the next run finds them (and the resume state written with them).
  package func namePartial(_ fd: Int32) throws(TransferError) {
    try stateFile.withLock { file throws(TransferError) in
      guard file.unnamed else { return }
      file.unnamed = false
      // Whatever is at the partial's name is no partial of this run's (a planted symlink is
      // removed, not followed).
      if try !link(fd, as: partialName) {
        unlinkat(parent, partialName, 0)
        guard try link(fd, as: partialName) else {
          throw FileErrors.error(EEXIST, "cannot name the partial file of \(path)")
        }
      }
      file.named = true
    }
  }

  /// Links the unnamed file `fd` into the folder as `name`: `false` when a name is there
  /// already. By the descriptor (`AT_EMPTY_PATH`), which kernels before 6.10 allow only with
  /// `CAP_DAC_READ_SEARCH`, else through its `/proc/self/fd` link, which anyone may use.
  private func link(_ fd: Int32, as name: String) throws(TransferError) -> Bool {
    let (linked, code) = DirectoryEntryLock.withLock(taking: directory.takesTurnsAddingNames) {
      var linked = name.withCString { linkat(fd, "", parent, $0, Self.emptyPath) }
      if linked != 0 && (errno == ENOENT || errno == EPERM) {
        linked = name.withCString {
          linkat(AT_FDCWD, "/proc/self/fd/\(fd)", parent, $0, AT_SYMLINK_FOLLOW)
        }
      }
      return (linked, errno)
    }
    if linked == 0 { return true }
    if code == EEXIST { return false }
    throw FileErrors.error(code, "cannot move \(path) into place")
  }

  /// `O_TMPFILE` (Linux: `__O_TMPFILE | O_DIRECTORY`) and `AT_EMPTY_PATH`, which Swift's
  /// Glibc module does not import.
  private static let unnamedFile = 0o2000_0000 | O_DIRECTORY
  private static let emptyPath: Int32 = 0x1000

  /// Moves the finished partial file into place and drops its state. With `durable`, the
  /// data is fsync'ed before the rename and the folder after it.
  package func finish(partial fd: Int32) throws(TransferError) {
    try applyRemoteTime(fd)
    if recordsETag { recordETag(fd) }
    if durable && fsync(fd) != 0 { throw FileErrors.error(errno, "cannot fsync \(path)") }
    try stateFile.withLock { file throws(TransferError) in
      if file.unnamed {
        file.unnamed = false
        if try link(fd, as: leaf) {
          file.finished = true
          if file.mayExist { unlinkat(parent, stateName, 0) }
          return
        }
        // Something appeared at the destination: this file replaces it, as a rename does.
        unlinkat(parent, partialName, 0)
        guard try link(fd, as: partialName) else {
          throw FileErrors.error(EEXIST, "cannot move \(path) into place")
        }
        file.named = true
      }
      let (renamed, code) = DirectoryEntryLock.withLock(taking: directory.takesTurnsAddingNames) {
        let renamed = partialName.withCString { from in
          leaf.withCString { to in renameat(parent, from, parent, to) }
        }
        return (renamed, errno)
      }
      guard renamed == 0 else { throw FileErrors.error(code, "cannot move \(path) into place") }
      file.finished = true
      if file.mayExist { unlinkat(parent, stateName, 0) }
    }
    if durable { fsync(parent) }
  }

  /// Notes the `Last-Modified` of the response whose body fills the partial file (`nil`
  /// when it has none, which leaves the listed time): the latest note wins, so a restarted
  /// or resumed body's counts.
  package func noteLastModified(_ value: String?) {
    guard remoteTime else { return }
    lastModified.withLock { $0 = value.flatMap(HTTPDate.epochSeconds) ?? listedTime }
  }

  /// Sets the partial file's mtime to the noted `Last-Modified` (atime untouched), before
  /// the rename so that the file never appears with another time.
  private func applyRemoteTime(_ fd: Int32) throws(TransferError) {
    guard let seconds = lastModified.withLock({ $0 }) else { return }
    // `UTIME_OMIT` (a macro Swift does not import): leave the access time as it is.
    let omit = (1 << 30) - 2
    var times = (timespec(tv_sec: 0, tv_nsec: omit), timespec(tv_sec: seconds, tv_nsec: 0))
    let set = withUnsafeMutableBytes(of: &times) {
      futimens(fd, $0.baseAddress?.assumingMemoryBound(to: timespec.self))
    }
    guard set == 0 else {
      throw FileErrors.error(errno, "cannot set the modification time of \(path)")
    }
  }

  /// Deletes the partial file when it holds nothing (a transfer that failed before its
  /// first byte, a refused connection say): there is nothing to resume.
  package func discardEmptyPartial() {
    guard let partial = partial(), partial.isRegularFile, partial.size == 0 else { return }
    unlinkat(parent, partialName, 0)
  }

  /// Deletes the partial file and its state (after a size or digest mismatch: its bytes
  /// are known bad; after a 304 to `--refresh`: the file in place is current). The state
  /// is unlinked only when one may exist, as in `finish`.
  package func discardPartial() {
    unlinkat(parent, partialName, 0)
    stateFile.withLock { file in
      file.queued = nil
      if file.mayExist { unlinkat(parent, stateName, 0) }
    }
  }

  /// The digests of `algorithms` and the length of the destination file, or `nil` when it
  /// cannot be read as a regular file. The digests are computed together in one read, with
  /// `seed` (`DigestSeed`) fed first to its algorithm. `length`, the file's size when it was
  /// last looked at, spares the read that finds the end (`hash`).
  package func digestsOfDestination(
    _ algorithms: [DigestAlgorithm], seed: DigestSeed? = nil, length: Int64? = nil
  ) -> (DigestValues, Int64)? {
    let fd = openat(parent, leaf, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    let digests = DigestSet(algorithms, seed: seed)
    guard let read = try? Self.hash(fd: fd, upTo: nil, into: digests, expecting: length)
    else { return nil }
    return (digests.finalize(), read)
  }

  /// Feeds the first `limit` bytes of `fd` (all of it when nil) into every digest of
  /// `digests`, in 1 MiB reads; returns the bytes read. `what` names the file in an error.
  ///
  /// With `length`, the file's size as last seen, a read that stops short of what it asked
  /// for just as `length` bytes are in is taken for the file's end, without one more read
  /// that returns nothing: a file that grew since gives its new bytes to that read instead.
  package static func hash(
    fd: Int32, upTo limit: Int64?, into digests: DigestSet, what: String = "the partial file",
    expecting length: Int64? = nil
  ) throws(TransferError) -> Int64 {
    let chunk = 1 << 20
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
    defer { buffer.deallocate() }
    var offset: Int64 = 0
    while limit.map({ offset < $0 }) ?? true {
      let wanted = limit.map { min(Int64(chunk), $0 - offset) } ?? Int64(chunk)
      let count = pread(fd, buffer.baseAddress, Int(wanted), off_t(offset))
      if count < 0 {
        if errno == EINTR { continue }
        throw FileErrors.error(errno, "cannot read \(what)")
      }
      if count == 0 { break }
      digests.update(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
      offset += Int64(count)
      if let length, offset == length, count < Int(wanted) { break }
    }
    return offset
  }
}
