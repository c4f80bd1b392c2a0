import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Whether another haul process may have finished files in the output directory while this
/// run claims entries there: the feeder looks at a claimed entry's destination again only
/// then (`EntryRunner.admission(for:)`), so that a run alone in its folder pays no `fstatat`
/// per file for the look.
///
/// Every run holds a read lock (`F_OFD_SETLK`) on byte 0 of `.haul/runs` for its lifetime
/// and counts itself in the file's first eight bytes, which every run maps (`MAP_SHARED`),
/// under a write lock on byte 1. Joining (at its first claim), a run counts itself, then
/// asks the kernel whether another run holds the read lock (`F_OFD_GETLK`): when one does,
/// or once the count moves past its own, another run is or was here, and from then on every
/// claimed entry is looked at again. A run that starts later counts itself before its first
/// claim; an entry it finished was claimed and released by it in the same lock file in
/// which this run then claims it, so this run's read of the count after that claim sees the
/// later run's count. The first claims of a run may be checked before it joins: a run that
/// finished one of those and ended in between costs a second fetch, never a wrong file.
///
/// Where the file cannot be made, locked or mapped, and on file systems whose mappings other
/// machines may not share (every one but the local ones), every claimed entry is looked at.
///
/// Thread-safe: joined once under a lock; afterwards an atomic and reads of the mapped count.
package final class OtherRuns: Sendable {
  private let root: Int32
  private let shared: Bool
  /// `unjoined`, `alone` (no other run seen since joining) or `seen`.
  private let state = Atomic<Int>(OtherRuns.unjoined)
  /// The mapped count's address and this run's own count, set before `alone` is published.
  private let address = Atomic<Int>(0)
  private let own = Atomic<UInt64>(0)
  /// The runs file's descriptor, which holds this run's read lock; -1 when none.
  private let descriptor = Atomic<Int32>(-1)
  private let joining = Mutex(())

  private static let unjoined = 0
  private static let alone = 1
  private static let seen = 2
  private static let size = 4096

  /// `shared`: whether the output directory's file system is a local one, whose mapped
  /// pages every process on it shares.
  init(root: Int32, shared: Bool) {
    self.root = root
    self.shared = shared
  }

  deinit {
    let address = address.load(ordering: .acquiring)
    if address != 0 { munmap(UnsafeMutableRawPointer(bitPattern: address), Self.size) }
    let fd = descriptor.load(ordering: .acquiring)
    if fd >= 0 { close(fd) }
  }

  /// Whether another run may have finished a file here since this run joined (joining on
  /// the first call): `false` only while this run is known to be alone.
  package var mayHaveWritten: Bool {
    var current = state.load(ordering: .acquiring)
    if current == Self.unjoined {
      join()
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

  private func join() {
    joining.withLock { _ in
      guard state.load(ordering: .acquiring) == Self.unjoined else { return }
      state.store(shared && enter() ? Self.alone : Self.seen, ordering: .releasing)
    }
  }

  /// Opens, locks and maps the runs file and counts this run: whether it is alone there.
  private func enter() -> Bool {
    let fd = EntryLocks.openLockFile("runs", in: root)
    guard fd >= 0 else { return false }
    descriptor.store(fd, ordering: .releasing)
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_size >= Self.size || ftruncate(fd, off_t(Self.size)) == 0,
      ByteLock.set(.read, on: fd, at: 0) == 0
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
}
