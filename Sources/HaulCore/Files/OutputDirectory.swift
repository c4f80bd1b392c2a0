import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The output directory (`-o`), through which every local file is reached without ever
/// following a symlink: a planted link (as a parent folder, in place of the partial file or
/// as the destination) makes the transfer fail with `path_refused` instead of writing outside.
///
/// Each operation walks the relative path component by component with `openat(...,
/// O_NOFOLLOW)`, creating missing folders, and works on the leaf relative to its parent's
/// descriptor; a download's folder is kept open for the files after it (`folder(of:)`).
/// Thread-safe: an immutable descriptor, and the kept folders behind a lock.
package final class OutputDirectory: Sendable {
  /// The root's path as given.
  package let path: String
  /// The root's descriptor; `folder(of:)` stands for it with `nil`.
  let descriptor: Int32
  /// The files read here (uploads, their folders), reached through `descriptor`.
  package let tree: LocalTree
  /// The folders below the root that downloads were last written in.
  private let folders = Mutex(FolderCache())
  /// Whether names are added to folders here one at a time (see `DirectoryEntryLock`): on
  /// every file system but tmpfs and ramfs, where adding a name is quick and taking turns
  /// would cost more (a sleep and a wake-up per file when two loops meet) than it saves.
  let takesTurnsAddingNames: Bool
  /// Whether small downloads start as unnamed files here (`LocalDownload.openUnnamedPartial`):
  /// on the local file systems (`localFileSystems`), until one refuses.
  private let unnamedFiles: Atomic<Bool>
  /// Whether the directory was created by this run or was empty when it was opened: its
  /// files are then only those this run writes (see `LocalDownload.isNew`).
  package let startedEmpty: Bool
  /// The longest name, in bytes, the output directory's file system takes (`NAME_MAX`, read
  /// once at start with `fpathconf`): side files are named to fit it (`PartialNames`).
  package let nameLimit: Int
  /// The room downloads directly in the output directory may take unasked.
  let room = RoomBudget()
  /// The claims this run holds on its entries against other haul processes here.
  package let entryLocks: EntryLocks
  /// Whether another haul process may have finished files here since this run's claims began.
  package let otherRuns: OtherRuns

  /// Opens (creating if needed) the output directory.
  package init(path: String) throws(TransferError) {
    let created = mkdir(path, 0o777) == 0
    if !created && errno != EEXIST {
      throw FileErrors.error(errno, "cannot create output directory \(path)")
    }
    let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { throw FileErrors.error(errno, "cannot open output directory \(path)") }
    self.path = path
    self.descriptor = fd
    tree = LocalTree(root: fd, rootPath: path)
    startedEmpty = created || Self.isEmpty(fd)
    let type = FileSystemType.of(fd)
    takesTurnsAddingNames = type != "tmpfs" && type != "ramfs"
    let local = type.map(Self.localFileSystems.contains) ?? false
    unnamedFiles = Atomic(local)
    let limit = fpathconf(fd, Int32(_PC_NAME_MAX))
    nameLimit = limit > 0 ? limit : PartialNames.defaultLimit
    otherRuns = OtherRuns(root: fd, shared: local)
    entryLocks = EntryLocks(runs: otherRuns)
  }

  /// Leaves before the root's descriptor, which the leaving works below, is closed.
  deinit {
    leave()
    close(descriptor)
  }

  /// Ends this run's claims and presence here, once no claim or release is under way (the
  /// run drained): the last run to leave removes `.haul`'s lock files, and `.haul` when it
  /// is then empty (`OtherRuns.leave()`). Idempotent; the run claims nothing afterwards.
  package func leave() {
    entryLocks.closeFiles()
    otherRuns.leave()
  }

  /// The local file systems, whose folders make unnamed files (`O_TMPFILE`, theirs since
  /// Linux 3.11 to 3.16) and whose mapped pages every process shares (`OtherRuns`). Network
  /// and FUSE file systems, which may not, keep named partial files and look at every claim.
  private static let localFileSystems: Set<String> = ["tmpfs", "ext4", "xfs", "btrfs"]

  /// Whether a small download may start as an unnamed file (see `unnamedFiles`).
  var takesUnnamedFiles: Bool { unnamedFiles.load(ordering: .relaxed) }

  /// Notes that a folder refused an unnamed file: the rest of the run names its partials.
  func refusesUnnamedFiles() { unnamedFiles.store(false, ordering: .relaxed) }

  /// The folder that holds a download's file at `relativePath`, created when missing, and
  /// the file's name in it: `nil` for the root itself (a plain name), else the folder, kept
  /// open for the paths after it in the same folder (`FolderCache`).
  package func folder(of relativePath: String) throws(TransferError) -> (FolderHandle?, String) {
    if Self.isPlainName(relativePath) { return (nil, relativePath) }
    // Split at the last `/` over the bytes, without the string's index arithmetic. The
    // folder's own path was walked and checked when it was kept; the name is checked here,
    // and anything but a plain name takes the walk that refuses it. The folder found last
    // is compared by its bytes before a string is made of its path.
    var path = relativePath
    let split = path.withUTF8 { bytes -> (FolderHandle?, String, String)? in
      guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return nil }
      let folderBytes = UnsafeBufferPointer(rebasing: bytes[..<slash])
      let name = String(
        decoding: UnsafeBufferPointer(rebasing: bytes[(slash + 1)...]), as: UTF8.self)
      if Self.isPlainName(name), let kept = folders.withLock({ $0.last(matching: folderBytes) }) {
        return (kept, name, "")
      }
      return (nil, name, String(decoding: folderBytes, as: UTF8.self))
    }
    guard let (last, name, folderPath) = split else {
      throw TransferError(.pathRefused, "path \(relativePath) leaves the output directory")
    }
    if let last { return (last, name) }
    let reusable = Self.isPlainName(name)
    if reusable, let kept = folders.withLock({ $0.handle(for: folderPath) }) {
      return (kept, name)
    }
    let (opened, leaf, created) = try walk(to: relativePath, create: true)
    let handle = FolderHandle(opened, createdByRun: created)
    if reusable { folders.withLock { $0.insert(handle, for: folderPath) } }
    return (handle, leaf)
  }

  /// The parent folder of a relative `path` (created when `create`), and the leaf's name.
  /// The caller closes the returned descriptor.
  package func parent(of relativePath: String, create: Bool) throws(TransferError) -> (
    Int32, String
  ) {
    let (folder, leaf, _) = try walk(to: relativePath, create: create)
    return (folder, leaf)
  }

  /// `parent(of:create:)`, and whether the walk created the leaf's folder.
  private func walk(to relativePath: String, create: Bool) throws(TransferError) -> (
    Int32, String, created: Bool
  ) {
    let components = relativePath.split(separator: "/", omittingEmptySubsequences: true)
      .filter { $0 != "." }
    guard let leaf = components.last, !components.contains("..") else {
      throw TransferError(.pathRefused, "path \(relativePath) leaves the output directory")
    }
    var current = dup(descriptor)
    guard current >= 0 else { throw FileErrors.error(errno, "cannot open output directory") }
    var created = false
    for component in components.dropLast() {
      let name = String(component)
      var next = openat(current, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
      created = false
      if next < 0 && errno == ENOENT && create {
        created = mkdirat(current, name, 0o777) == 0
        if !created && errno != EEXIST {
          let code = errno
          close(current)
          throw FileErrors.error(code, "cannot create folder for \(relativePath)")
        }
        next = openat(current, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
      }
      if next < 0 {
        let code = errno
        close(current)
        if code == ELOOP || code == ENOTDIR {
          throw TransferError(
            .pathRefused, "\(relativePath): a parent folder is a symlink or not a folder")
        }
        throw FileErrors.error(code, "cannot open folder for \(relativePath)")
      }
      close(current)
      current = next
    }
    return (current, String(leaf), created)
  }

  /// Whether the folder open as `fd` holds no names but `.`, `..` and `.haul` (haul's own
  /// folder, never a download's); `false` when it cannot be read.
  private static func isEmpty(_ fd: Int32) -> Bool {
    let copy = dup(fd)
    guard copy >= 0, let stream = fdopendir(copy) else {
      if copy >= 0 { close(copy) }
      return false
    }
    defer { closedir(stream) }
    while let entry = readdir(stream) {
      let isDot = withUnsafeBytes(of: entry.pointee.d_name) { name in
        name[0] == UInt8(ascii: ".")
          && (name[1] == 0 || (name[1] == UInt8(ascii: ".") && name[2] == 0)
            || (name[1] == UInt8(ascii: "h") && name[2] == UInt8(ascii: "a")
              && name[3] == UInt8(ascii: "u") && name[4] == UInt8(ascii: "l") && name[5] == 0))
      }
      if !isDot { return false }
    }
    return true
  }

  /// Whether `name` is one path component naming a file: no `/`, not empty, `.` or `..`.
  private static func isPlainName(_ name: String) -> Bool {
    !name.isEmpty && !name.isDotSegment && !name.utf8Contains(UInt8(ascii: "/"))
  }

  /// Metadata of the file at `relativePath` without following a final symlink; `nil` when
  /// absent (or a parent is missing).
  package func status(of relativePath: String) throws(TransferError) -> FileStatus? {
    let (parent, leaf): (Int32, String)
    do throws(TransferError) {
      (parent, leaf) = try self.parent(of: relativePath, create: false)
    } catch  where error.code == .io || error.code == .pathRefused {
      return nil
    }
    defer { close(parent) }
    return FileStatus.lstat(parent, leaf)
  }
}

/// A file an upload reads, opened through the output directory (`LocalTree.openFile`) and
/// held open while the upload's requests go: the transports and strategies, which open a
/// body by path, are given `/proc/self/fd/N`, which reopens this very file, whatever is
/// planted at its name afterwards. Closed when the last holder lets go.
package final class UploadFile: Sendable {
  /// The open file.
  let descriptor: Int32
  /// The path that reopens the file (`/proc/self/fd/N`).
  package let path: String

  /// Opens the upload file at `relativePath` under `directory`; `path_refused` when a
  /// symlink on the way leads out of it, `io` when it is missing or no regular file.
  package init(_ relativePath: String, in directory: OutputDirectory) throws(TransferError) {
    do {
      descriptor = try directory.tree.openFile(relativePath, followsLinks: true)
    } catch {
      throw error.transferError("cannot read \(relativePath)")
    }
    path = "/proc/self/fd/\(descriptor)"
  }

  deinit { close(descriptor) }

  /// The file's size now.
  package var size: Int64? {
    var info = stat()
    guard fstat(descriptor, &info) == 0 else { return nil }
    return Int64(info.st_size)
  }
}

/// What haul needs to know of a local file.
package struct FileStatus: Sendable, Hashable {
  package var size: Int64
  package var isRegularFile: Bool
  package var isSymlink: Bool
  package var isFolder: Bool = false
  /// Its modification time, in whole seconds since 1970.
  package var modified: Int

  /// `fstatat` without following symlinks; `nil` when there is nothing at `name`.
  static func lstat(_ directory: Int32, _ name: String) -> FileStatus? {
    var info = stat()
    let status = name.withCString { fstatat(directory, $0, &info, AT_SYMLINK_NOFOLLOW) }
    guard status == 0 else { return nil }
    let type = info.st_mode & S_IFMT
    return FileStatus(
      size: Int64(info.st_size), isRegularFile: type == S_IFREG, isSymlink: type == S_IFLNK,
      isFolder: type == S_IFDIR, modified: Int(info.st_mtim.tv_sec))
  }
}

/// Maps `errno` values from local file operations to typed errors.
package enum FileErrors {
  /// Writes all of `bytes` at `offset` of `fd` (short writes and EINTR retried); a failure
  /// is typed as `error(_:_:)` says, with `what` naming the file (built only on failure).
  package static func pwriteAll(
    _ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64,
    what: @autoclosure () -> String
  ) throws(TransferError) {
    guard let base = bytes.baseAddress else { return }
    var done = 0
    while done < bytes.count {
      let count = pwrite(fd, base + done, bytes.count - done, off_t(offset) + off_t(done))
      if count < 0 {
        if errno == EINTR { continue }
        throw error(errno, what())
      }
      done += count
    }
  }

  /// `disk_full` for ENOSPC/EDQUOT, `path_refused` for ELOOP, `io` for everything else.
  package static func error(_ code: Int32, _ what: String) -> TransferError {
    let reason = String(cString: strerror(code))
    switch code {
    case ENOSPC, EDQUOT: return TransferError(.diskFull, "\(what): \(reason)")
    case ELOOP: return TransferError(.pathRefused, "\(what): refusing to follow a symlink")
    default: return TransferError(.io, "\(what): \(reason)")
    }
  }
}
