import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Claims on the entries of one output directory, shared by every haul process writing
/// there, so that two runs never transfer the same file at once.
///
/// A claim is an open-file-description lock (`F_OFD_SETLK`) on one byte of one of the lock
/// files `.haul/entries-NN.lock` (`shardCount` of them), both chosen by a hash of the
/// entry's path. The kernel drops every such lock when the process ends, however it ends
/// (`kill -9` included), so no claim outlives its run, and a claim or a release is one
/// `fcntl`. Why several files: the kernel keeps a file's locks in one list and walks all of
/// it on every lock and unlock, and a run holds a claim for every entry it has read ahead
/// (about sixteen per slot), so one file would make each `fcntl` cost grow with `-j`. A lock
/// file is opened on the first claim that falls in it, so a run that downloads nothing
/// (`verify`, uploads) creates no `.haul/`. The first claim joins the run's presence
/// (`OtherRuns`) before any lock file is opened: the lock files are only opened while that
/// presence holds off their removal, and the last run to leave removes them (`close()`,
/// then `OtherRuns.leave()`).
///
/// Where a lock file cannot be made because the folder refuses it (read-only, forbidden, a
/// symlink as `.haul`), every claim in it succeeds: such a run is as unprotected as one
/// without claims, and a download there fails on its own files anyway. Any other reason
/// (no descriptor left, `EMFILE`/`ENFILE`; no memory; a full disk) fails the claim with its
/// error instead, and the next claim in that file tries to open it again: a run short of
/// descriptors must not fetch a file the other run is fetching.
///
/// Thread-safe: each descriptor is set once (atomically) and only passed to `fcntl`, until
/// `close()` at the run's end.
package final class EntryLocks: Sendable {
  /// How many lock files the claims are spread over: one for each value of a hash's top four
  /// bits (`shard(of:)`), the count of `descriptors`. Enough that each file's list stays
  /// short at `-j 256` (a few hundred claims), few enough that the descriptors fit in
  /// `FileLimits.reserve` beside the run's others.
  package static let shardCount = 16
  /// The run's presence in `.haul`, which gives the folder the lock files are opened in.
  private let runs: OtherRuns
  /// Each lock file's descriptor: `unopened` until the first claim in it opens it,
  /// `unavailable` when the folder refuses it.
  private let descriptors: InlineArray<16, Atomic<Int32>> = InlineArray { _ in
    Atomic(EntryLocks.unopened)
  }
  private static let unopened: Int32 = -2
  private static let unavailable: Int32 = -1

  /// How a lock file is opened: NAME in the `.haul` folder's descriptor, its descriptor or
  /// the negated `errno` (`openLockFile(_:in:)`, or a test's stand-in for a failing one).
  private let opening: @Sendable (_ name: String, _ folder: Int32) -> Int32

  package init(
    runs: OtherRuns,
    opening: @escaping @Sendable (_ name: String, _ folder: Int32) -> Int32 = EntryLocks
      .openLockFile
  ) {
    self.runs = runs
    self.opening = opening
  }

  deinit { closeFiles() }

  /// Closes the lock files, letting go of every claim, at the run's end: claims after it are
  /// not taken. Called once no claim or release is under way.
  package func closeFiles() {
    for shard in 0..<Self.shardCount {
      let fd = descriptors[shard].exchange(Self.unavailable, ordering: .acquiringAndReleasing)
      if fd >= 0 { close(fd) }
    }
  }

  /// The name of lock file `shard` in the output directory's `.haul` folder.
  package static func fileName(shard: Int) -> String {
    shard < 10 ? "entries-0\(shard).lock" : "entries-\(shard).lock"
  }

  /// Claims the entry at `path` (relative to the output directory): `false` when another
  /// process holds it. Throws when its lock file cannot be opened for a reason other than
  /// the folder refusing it (`io`, or `disk_full`), the claim then neither taken nor granted.
  package func claim(_ path: String) throws(TransferError) -> Bool {
    let hash = Self.hash(of: path)
    let shard = Self.shard(of: hash)
    guard let fd = try lockFile(shard) else { return true }
    if ByteLock.set(.write, on: fd, at: Self.offset(of: hash)) == 0 { return true }
    // Any other failure (a file system without such locks) is no one else's claim.
    return errno != EAGAIN && errno != EACCES
  }

  /// Lets go of the claim on `path` (nothing when this process holds none).
  package func release(_ path: String) {
    let hash = Self.hash(of: path)
    let fd = descriptors[Self.shard(of: hash)].load(ordering: .acquiring)
    guard fd >= 0 else { return }
    _ = ByteLock.set(.none, on: fd, at: Self.offset(of: hash))
  }

  /// The 64-bit FNV-1a hash of `path`, which picks both its lock file and its byte.
  package static func hash(of path: String) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in path.utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x100_0000_01b3
    }
    return hash
  }

  /// The lock file of a path's `hash`: its top four bits.
  package static func shard(of hash: UInt64) -> Int {
    Int(hash >> 60)
  }

  /// The byte that stands for a path's `hash` in its lock file, kept below 2^62 so that the
  /// offset and its one byte fit an `off_t`. Two paths of one run sharing a file and a byte
  /// (about one chance in 2^62 per pair) would only share their claim.
  static func offset(of hash: UInt64) -> Int64 {
    Int64(hash & (1 << 62 - 1))
  }

  /// Lock file `shard`'s descriptor, opened (and the run's presence joined) on first use;
  /// `nil` when the folder refuses it. Any other failure throws and leaves the file to be
  /// opened again.
  private func lockFile(_ shard: Int) throws(TransferError) -> Int32? {
    var fd = descriptors[shard].load(ordering: .acquiring)
    if fd == Self.unopened {
      // A folder that refuses `.haul` refuses every lock file in it.
      let opened = try runs.lockFolder().map { opening(Self.fileName(shard: shard), $0) } ?? -EROFS
      if opened < 0 && !Self.refuses(-opened) {
        throw FileErrors.error(
          -opened, "cannot claim the entry: cannot open .haul/\(Self.fileName(shard: shard))")
      }
      let (exchanged, current) = descriptors[shard].compareExchange(
        expected: Self.unopened, desired: max(opened, Self.unavailable),
        ordering: .acquiringAndReleasing)
      if !exchanged, opened >= 0 { close(opened) }
      fd = exchanged ? opened : current
    }
    return fd >= 0 ? fd : nil
  }

  /// Whether `error`, from making `.haul` or its lock file, says the folder refuses them (a
  /// read-only file system, no permission, a symlink in the way) rather than that this
  /// process could not open them now.
  static func refuses(_ error: Int32) -> Bool {
    [EROFS, EACCES, EPERM, ELOOP, ENOTDIR, EISDIR].contains(error)
  }

  /// Opens (creating) the lock file NAME in the `.haul` folder open as `folder`, without
  /// following a symlink: the descriptor, or the negated `errno`.
  package static func openLockFile(_ name: String, in folder: Int32) -> Int32 {
    let fd = openat(folder, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o666)
    return fd >= 0 ? fd : -errno
  }
}
