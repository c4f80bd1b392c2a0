import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An open folder below the output directory, shared by every download whose file it holds;
/// closed when the last holder lets go.
///
/// Threading: the descriptor is only passed to `*at` calls, which any thread may make at
/// once; `heldPartials` is read once, under a lock, and kept in an atomic for the reads
/// after it.
package final class FolderHandle: Sendable {
  /// The folder's descriptor, opened without following a symlink on the way.
  package let descriptor: Int32
  /// Whether this run created the folder, so that it holds only files this run writes.
  package let createdByRun: Bool
  /// `heldPartials`, once read: 0 before, then 1 (none held) or 2. Read without the lock
  /// (every listed file of a rerun asks it).
  private let partialsKnown = Atomic<UInt8>(0)
  /// Held while `heldPartials` is first read, so that the folder is read once.
  private let partialsRead = Mutex(())
  /// The room downloads into this folder may take unasked (its file system may be another
  /// than the output directory's).
  let room = RoomBudget()

  init(_ descriptor: Int32, createdByRun: Bool) {
    self.descriptor = descriptor
    self.createdByRun = createdByRun
  }

  deinit { close(descriptor) }

  /// Whether the folder held any partial file (`NAME.haul-partial`) when this was first
  /// asked: one read of the folder's names, so that the skip checks of the files in place
  /// in a folder without partials look for none (one `fstatat` per file instead of two).
  /// A name that cannot be read counts as a partial.
  package var heldPartials: Bool {
    let known = partialsKnown.load(ordering: .acquiring)
    if known != 0 { return known == 2 }
    return partialsRead.withLock { _ in
      let known = partialsKnown.load(ordering: .acquiring)
      if known != 0 { return known == 2 }
      let found = Self.holdsPartial(descriptor)
      partialsKnown.store(found ? 2 : 1, ordering: .releasing)
      return found
    }
  }

  private static func holdsPartial(_ folder: Int32) -> Bool {
    let copy = openat(folder, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard copy >= 0, let stream = fdopendir(copy) else {
      if copy >= 0 { close(copy) }
      return true
    }
    defer { closedir(stream) }
    let suffix = Array(PartialNames.partialSuffix.utf8)
    while let entry = readdir(stream) {
      let found = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        let name = raw.prefix { $0 != 0 }
        return name.count > suffix.count && name.suffix(suffix.count).elementsEqual(suffix)
      }
      if found { return true }
    }
    return false
  }
}

/// The folders opened for the latest paths, by their path relative to the output directory.
///
/// Why: a manifest lists a folder's files together, and reaching each file by walking its
/// path component by component twice (for the skip check, then to write it) costs a `dup`,
/// an `openat` and a `close` per component each time. With the folder kept, the files after
/// the first one in a folder cost none of these.
///
/// Bounded: the oldest folder is let go when a new one would exceed `capacity`, so the cache
/// never holds more descriptors than that (those of transfers in flight are theirs).
///
/// The folder found last is compared first, without hashing its path: a listing's files, and
/// a manifest's mostly, come folder by folder.
struct FolderCache {
  static let capacity = 16
  private var handles: [String: FolderHandle] = [:]
  /// Keys in the order they were added, the oldest first.
  private var order: [String] = []
  /// The folder found or added last, one of `handles`.
  private var last: (path: String, handle: FolderHandle)?

  /// The folder found or added last, when its path's UTF-8 is `path`'s bytes.
  func last(matching path: UnsafeBufferPointer<UInt8>) -> FolderHandle? {
    guard var last else { return nil }
    let same = last.path.withUTF8 { kept in
      kept.count == path.count
        && (kept.isEmpty || memcmp(kept.baseAddress!, path.baseAddress!, kept.count) == 0)
    }
    return same ? last.handle : nil
  }

  mutating func handle(for path: String) -> FolderHandle? {
    if let last, last.path == path { return last.handle }
    guard let handle = handles[path] else { return nil }
    last = (path, handle)
    return handle
  }

  mutating func insert(_ handle: FolderHandle, for path: String) {
    if handles.updateValue(handle, forKey: path) == nil { order.append(path) }
    last = (path, handle)
    if order.count > Self.capacity { handles[order.removeFirst()] = nil }
  }
}
