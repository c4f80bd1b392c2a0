import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Claims on the entries of one output directory, shared by every haul process writing
/// there, so that two runs never transfer the same file at once.
///
/// A claim is an open-file-description lock (`F_OFD_SETLK`) on one byte of the lock file
/// `.haul/entries.lock`, at an offset given by a hash of the entry's path. The kernel drops
/// every such lock when the process ends, however it ends (`kill -9` included), so no claim
/// outlives its run, and a claim or a release is one `fcntl`. The lock file is opened on the
/// first claim, so a run that downloads nothing (`verify`, uploads) creates no `.haul/`.
///
/// Where the lock file cannot be made (a read-only folder, a symlink as `.haul`), every claim
/// succeeds: such a run is as unprotected as one without claims, and a download there
/// fails on its own files anyway.
///
/// Thread-safe: the descriptor is set once (atomically) and only passed to `fcntl`.
package final class EntryLocks: Sendable {
  /// The lock file's name in the output directory's `.haul` folder.
  package static let fileName = "entries.lock"
  /// The output directory's descriptor, kept open by its owner.
  private let root: Int32
  /// The lock file's descriptor: `unopened` until the first claim, `unavailable` when it
  /// could not be opened.
  private let descriptor = Atomic<Int32>(EntryLocks.unopened)
  private static let unopened: Int32 = -2
  private static let unavailable: Int32 = -1

  /// Linux's `F_OFD_SETLK` and the lock types, which Swift's Glibc module does not import.
  private static let setLock: Int32 = 37
  private static let writeLock: Int16 = 1
  private static let unlock: Int16 = 2

  init(root: Int32) {
    self.root = root
  }

  deinit {
    let fd = descriptor.load(ordering: .acquiring)
    if fd >= 0 { close(fd) }
  }

  /// Claims the entry at `path` (relative to the output directory): `false` when another
  /// process holds it.
  package func claim(_ path: String) -> Bool {
    guard let fd = lockFile() else { return true }
    if Self.lock(fd, Self.writeLock, at: Self.offset(of: path)) == 0 { return true }
    // Any other failure (a file system without such locks) is no one else's claim.
    return errno != EAGAIN && errno != EACCES
  }

  /// Lets go of the claim on `path` (nothing when this process holds none).
  package func release(_ path: String) {
    guard let fd = lockFile() else { return }
    _ = Self.lock(fd, Self.unlock, at: Self.offset(of: path))
  }

  private static func lock(_ fd: Int32, _ type: Int16, at offset: Int64) -> Int32 {
    var request = flock()
    request.l_type = type
    request.l_whence = Int16(SEEK_SET)
    request.l_start = off_t(offset)
    request.l_len = 1
    request.l_pid = 0
    return withUnsafeMutablePointer(to: &request) { fcntl(fd, setLock, $0) }
  }

  /// The byte that stands for `path`: its 64-bit FNV-1a hash, kept below 2^62 so that the
  /// offset and its one byte fit an `off_t`. Two paths of one run sharing a byte (about one
  /// chance in 2^62 per pair) would only share their claim.
  static func offset(of path: String) -> Int64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in path.utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x100_0000_01b3
    }
    return Int64(hash & (1 << 62 - 1))
  }

  /// The lock file's descriptor, opened (and `.haul` made) on first use; `nil` when it
  /// cannot be had.
  private func lockFile() -> Int32? {
    var fd = descriptor.load(ordering: .acquiring)
    if fd == Self.unopened {
      let opened = Self.open(in: root)
      let (exchanged, current) = descriptor.compareExchange(
        expected: Self.unopened, desired: opened, ordering: .acquiringAndReleasing)
      if !exchanged, opened >= 0 { close(opened) }
      fd = exchanged ? opened : current
    }
    return fd >= 0 ? fd : nil
  }

  /// Opens `.haul/entries.lock` below `root`, creating both, without following a symlink.
  private static func open(in root: Int32) -> Int32 {
    if mkdirat(root, ".haul", 0o777) != 0 && errno != EEXIST { return unavailable }
    let folder = openat(root, ".haul", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard folder >= 0 else { return unavailable }
    defer { close(folder) }
    let fd = openat(folder, fileName, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o666)
    return fd >= 0 ? fd : unavailable
  }
}
