import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// This run's presence in the output directory's `.haul` folder, which holds the lock files
/// of the entry claims (`EntryLocks`), and whether another haul process may have finished
/// files there while this run claims entries: the feeder looks at a claimed entry's
/// destination again only then (`EntryRunner.admission(for:)`), so that a run alone in its
/// folder pays no `fstatat` per file for the look.
///
/// Every run that claims holds a read lock (`F_OFD_SETLK`) on byte 0 of `.haul/runs` from
/// its first claim to its end, and opens the claims' lock files only while it holds it. The
/// run that leaves last takes the write lock on that byte in its place and, holding it,
/// removes the lock files, `runs` and then `.haul` when nothing else is in it (`leave()`), so
/// an ended run leaves nothing of its own in the folder. A run that joins while another
/// removes them waits for the write lock to go, then finds `runs` unlinked (or `.haul`
/// gone) and joins again on new ones: no run ever claims in a lock file that is about to go,
/// and no run that holds claims has its lock files taken away, for it holds the read lock.
///
/// The presence also counts: each run counts itself in the file's first eight bytes, which
/// every run maps (`MAP_SHARED`), under a write lock on byte 1. Joining, a run counts itself,
/// then asks the kernel whether another run holds the read lock (`F_OFD_GETLK`): when one
/// does, or once the count moves past its own, another run is or was here, and from then on
/// every claimed entry is looked at again. A run that starts later counts itself before its
/// first claim; an entry it finished was claimed and released by it in the same lock file in
/// which this run then claims it, so this run's read of the count after that claim sees the
/// later run's count. The first claims of a run may be checked before it joins: a run that
/// finished one of those and ended in between costs a second fetch, never a wrong file.
///
/// Where the file cannot be made, locked or mapped, and on file systems whose mappings other
/// machines may not share (every one but the local ones), every claimed entry is looked at.
///
/// Thread-safe: joined and left under a lock; between them, atomics and reads of the count.
package final class OtherRuns: Sendable {
  private let root: Int32
  private let shared: Bool
  /// `unjoined`, `alone` (no other run seen since joining), `seen`, `refused` (the folder
  /// refuses `.haul`) or `left`.
  private let state = Atomic<Int>(OtherRuns.unjoined)
  /// The mapped count's address and this run's own count, set before `alone` is published.
  private let address = Atomic<Int>(0)
  private let own = Atomic<UInt64>(0)
  /// The runs file's descriptor, which holds this run's read lock; -1 when none.
  private let descriptor = Atomic<Int32>(-1)
  /// The `.haul` folder's descriptor, in which the claims' lock files are opened; -1 when
  /// none.
  private let folder = Atomic<Int32>(-1)
  /// Whether this run holds the read lock on byte 0 of the runs file (not where the file
  /// system takes no locks).
  private let present = Atomic<Bool>(false)
  private let joining = Mutex(())

  private static let unjoined = 0
  private static let alone = 1
  private static let seen = 2
  private static let refused = 3
  private static let left = 4
  private static let size = 4096
  /// The name of the runs file in `.haul`.
  package static let fileName = "runs"
  /// How many times a join starts over after finding its `.haul` or `runs` removed by a run
  /// that left meanwhile, before the claim fails (each removal is a few `unlink`s long).
  private static let attempts = 100

  /// `shared`: whether the output directory's file system is a local one, whose mapped
  /// pages every process on it shares.
  package init(root: Int32, shared: Bool) {
    self.root = root
    self.shared = shared
  }

  deinit { leave() }

  /// Whether another run may have finished a file here since this run joined (joining on
  /// the first call): `false` only while this run is known to be alone.
  package var mayHaveWritten: Bool {
    var current = state.load(ordering: .acquiring)
    if current == Self.unjoined {
      _ = try? join()
      current = state.load(ordering: .acquiring)
    }
    guard current == Self.alone,
      let count = UnsafeRawPointer(bitPattern: address.load(ordering: .acquiring))
    else { return true }
    guard count.load(as: UInt64.self) == own.load(ordering: .relaxed) else {
      state.store(Self.seen, ordering: .releasing)
      return true
    }
    return false
  }

  /// The `.haul` folder's descriptor, joining on the first call: `nil` when the folder
  /// refuses it (read-only, forbidden, a symlink or a file as `.haul`) or this run left.
  /// Any other failure (no descriptor left, a full disk) throws, and the next call tries
  /// again.
  package func lockFolder() throws(TransferError) -> Int32? {
    if state.load(ordering: .acquiring) == Self.unjoined { try join() }
    let fd = folder.load(ordering: .acquiring)
    return fd >= 0 ? fd : nil
  }

  private func join() throws(TransferError) {
    let failure = joining.withLock { _ -> Int32 in
      guard state.load(ordering: .acquiring) == Self.unjoined else { return 0 }
      let error = enter()
      if error != 0 && EntryLocks.refuses(error) {
        state.store(Self.refused, ordering: .releasing)
        return 0
      }
      return error
    }
    if failure != 0 {
      throw FileErrors.error(failure, "cannot claim the entry: cannot open .haul/runs")
    }
  }

  /// Makes `.haul` and `runs`, takes the read lock on a runs file that is still named
  /// `.haul/runs` and counts this run: 0, or the `errno` that kept it out.
  private func enter() -> Int32 {
    for _ in 0..<Self.attempts {
      if mkdirat(root, ".haul", 0o777) != 0 && errno != EEXIST { return errno }
      let haul = openat(root, ".haul", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
      guard haul >= 0 else {
        if errno == ENOENT { continue }
        return errno
      }
      let fd = openat(haul, Self.fileName, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o666)
      guard fd >= 0 else {
        let code = errno
        close(haul)
        if code == ENOENT { continue }
        return code
      }
      // Waits out a run that holds the write lock while it removes the files.
      var locked = ByteLock.set(.read, on: fd, at: 0, waiting: true)
      while locked != 0 && errno == EINTR {
        locked = ByteLock.set(.read, on: fd, at: 0, waiting: true)
      }
      if locked == 0 && !Self.isNamed(fd, in: haul, root: root) {
        close(fd)
        close(haul)
        continue
      }
      folder.store(haul, ordering: .releasing)
      descriptor.store(fd, ordering: .releasing)
      present.store(locked == 0, ordering: .releasing)
      let alone = shared && locked == 0 && count(fd)
      state.store(alone ? Self.alone : Self.seen, ordering: .releasing)
      return 0
    }
    return EAGAIN
  }

  /// Maps the runs file open as `fd` and counts this run in it: whether it is alone there.
  private func count(_ fd: Int32) -> Bool {
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_size >= Self.size || ftruncate(fd, off_t(Self.size)) == 0
    else { return false }
    guard let mapped = mmap(nil, Self.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0),
      mapped != UnsafeMutableRawPointer(bitPattern: -1)
    else { return false }
    address.store(Int(bitPattern: mapped), ordering: .releasing)
    guard ByteLock.set(.write, on: fd, at: 1, waiting: true) == 0 else { return false }
    let counted = mapped.load(as: UInt64.self) &+ 1
    mapped.storeBytes(of: counted, as: UInt64.self)
    _ = ByteLock.set(.none, on: fd, at: 1)
    own.store(counted, ordering: .releasing)
    return ByteLock.isHeld(against: .write, on: fd, at: 0) == false
  }

  /// Ends this run's presence (the claims' lock files closed first, by `EntryLocks.close()`)
  /// and, when no other run is here, removes the lock files, `runs` and `.haul` once empty.
  /// A run that never joined does the same for what a killed run left, when `.haul` exists.
  /// Once left, the run claims nothing (`lockFolder()` is `nil`). Idempotent.
  package func leave() {
    joining.withLock { _ in
      let before = state.exchange(Self.left, ordering: .acquiringAndReleasing)
      guard before != Self.left, before != Self.refused else { return }
      let mapped = address.exchange(0, ordering: .acquiringAndReleasing)
      if mapped != 0 { munmap(UnsafeMutableRawPointer(bitPattern: mapped), Self.size) }
      var haul = folder.exchange(-1, ordering: .acquiringAndReleasing)
      var fd = descriptor.exchange(-1, ordering: .acquiringAndReleasing)
      if haul < 0 {
        haul = openat(root, ".haul", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if haul >= 0 {
          fd = openat(haul, Self.fileName, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o666)
        }
      } else if present.load(ordering: .acquiring) {
        _ = ByteLock.set(.none, on: fd, at: 0)
      }
      // Last: no other run holds the read lock, and the file is still the one named `runs`
      // (a run that left just before may have removed it and a new one made another).
      let last =
        fd >= 0 && ByteLock.set(.write, on: fd, at: 0) == 0
        && Self.isNamed(fd, in: haul, root: root)
      if last {
        for shard in 0..<EntryLocks.shardCount {
          unlinkat(haul, EntryLocks.fileName(shard: shard), 0)
        }
        unlinkat(haul, Self.fileName, 0)
      }
      // Closed before `.haul` is removed: on NFS an unlinked file still open is renamed
      // (`.nfsXXXX`) and only goes once closed.
      if fd >= 0 { close(fd) }
      if haul >= 0 { close(haul) }
      if last { Self.removeFolder(in: root, retrying: !shared) }
    }
  }

  /// Removes `.haul` below `root` when it is empty. Safe whoever does it and whenever: a
  /// folder with anything in it stays, and whoever makes a file in `.haul` starts over when
  /// it finds the folder gone. `retrying` (a network file system) tries a few times more
  /// while the client finishes removing the files it renamed.
  package static func removeFolder(in root: Int32, retrying: Bool = false) {
    for _ in 0..<(retrying ? 10 : 1) {
      if unlinkat(root, ".haul", AT_REMOVEDIR) == 0 { return }
      guard errno == ENOTEMPTY || errno == EEXIST || errno == EBUSY else { return }
      usleep(10_000)
    }
  }

  /// Whether the file open as `fd` is still `runs` in the folder open as `haul`, and that
  /// folder still `.haul` below `root`.
  private static func isNamed(_ fd: Int32, in haul: Int32, root: Int32) -> Bool {
    var file = stat()
    var named = stat()
    var folder = stat()
    var folderNamed = stat()
    return fstat(fd, &file) == 0 && file.st_nlink > 0
      && fstatat(haul, fileName, &named, AT_SYMLINK_NOFOLLOW) == 0
      && file.st_dev == named.st_dev && file.st_ino == named.st_ino
      && fstat(haul, &folder) == 0
      && fstatat(root, ".haul", &folderNamed, AT_SYMLINK_NOFOLLOW) == 0
      && folder.st_dev == folderNamed.st_dev && folder.st_ino == folderNamed.st_ino
  }
}
