#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The local files of one download: the destination, the partial file beside it
/// (`NAME.haul-partial`) and its resume state (`NAME.haul-state`), all reached through the
/// parent folder's descriptor without following symlinks.
///
/// Owned by the one task running the entry; not shared.
public final class LocalDownload: @unchecked Sendable {
  public let path: String
  private let parent: Int32
  private let leaf: String
  private let durable: Bool
  /// Whether a state file may be on disk (one was found or written), so that finishing
  /// removes it; a download that never had one saves the `unlinkat`.
  private var stateMayExist = false

  public var partialName: String { leaf + ".haul-partial" }
  public var stateName: String { leaf + ".haul-state" }

  /// Opens the parent folder of `path` in `directory`, creating folders as needed.
  /// `durable` (`--fsync`) makes the finished file and its rename survive a power cut.
  public init(directory: OutputDirectory, path: String, durable: Bool) throws(TransferError) {
    (parent, leaf) = try directory.parent(of: path, create: true)
    self.path = path
    self.durable = durable
  }

  deinit { close(parent) }

  /// The destination's metadata (a symlink is reported as such, never followed).
  public func destination() -> FileStatus? { FileStatus.lstat(parent, leaf) }

  /// The partial file's metadata.
  public func partial() -> FileStatus? { FileStatus.lstat(parent, partialName) }

  /// The resume state, or `nil` when absent or damaged.
  public func readState() -> ResumeState? {
    let fd = openat(parent, stateName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else {
      if errno != ENOENT { stateMayExist = true }
      return nil
    }
    stateMayExist = true
    defer { close(fd) }
    var bytes = [UInt8](repeating: 0, count: 64 * 1024)
    let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    guard count > 0 else { return nil }
    return ResumeState.decode(Array(bytes[..<count]))
  }

  /// Replaces the resume state atomically (a temporary file renamed over it).
  public func writeState(_ state: ResumeState) throws(TransferError) {
    let temporary = stateName + ".tmp"
    stateMayExist = true
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

  /// Opens the partial file for reading and writing, creating it, and emptying it when
  /// `truncate`. Refuses a symlink or anything but a regular file in its place.
  public func openPartial(truncate: Bool) throws(TransferError) -> Int32 {
    let flags = O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (truncate ? O_TRUNC : 0)
    let fd = openat(parent, partialName, flags, 0o666)
    guard fd >= 0 else { throw FileErrors.error(errno, "cannot open partial file of \(path)") }
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
      close(fd)
      throw TransferError(.pathRefused, "\(path): the partial file is not a regular file")
    }
    return fd
  }

  /// Moves the finished partial file into place and drops its state. With `durable`, the
  /// data is fsync'ed before the rename and the folder after it.
  public func finish(partial fd: Int32) throws(TransferError) {
    if durable && fsync(fd) != 0 { throw FileErrors.error(errno, "cannot fsync \(path)") }
    guard renameat(parent, partialName, parent, leaf) == 0 else {
      throw FileErrors.error(errno, "cannot move \(path) into place")
    }
    if stateMayExist {
      unlinkat(parent, stateName, 0)
      stateMayExist = false
    }
    if durable { fsync(parent) }
  }

  /// Deletes the partial file and its state (after a size or digest mismatch: its bytes
  /// are known bad).
  public func discardPartial() {
    unlinkat(parent, partialName, 0)
    unlinkat(parent, stateName, 0)
  }

  /// The SHA-256 and length of the destination file, or `nil` when it cannot be read as a
  /// regular file.
  public func digestOfDestination() -> (String, Int64)? {
    let fd = openat(parent, leaf, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    let hasher = SHA256()
    guard let length = try? Self.hash(fd: fd, upTo: nil, into: hasher) else { return nil }
    return (hasher.finalize(), length)
  }

  /// Feeds the first `limit` bytes of `fd` (all of it when nil) into `hasher`; returns the
  /// bytes read.
  public static func hash(fd: Int32, upTo limit: Int64?, into hasher: SHA256)
    throws(TransferError) -> Int64
  {
    let chunk = 1 << 20
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
    defer { buffer.deallocate() }
    var offset: Int64 = 0
    while limit.map({ offset < $0 }) ?? true {
      let wanted = limit.map { min(Int64(chunk), $0 - offset) } ?? Int64(chunk)
      let count = pread(fd, buffer.baseAddress, Int(wanted), off_t(offset))
      if count < 0 {
        if errno == EINTR { continue }
        throw FileErrors.error(errno, "cannot read partial file")
      }
      if count == 0 { break }
      hasher.update(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
      offset += Int64(count)
    }
    return offset
  }
}
