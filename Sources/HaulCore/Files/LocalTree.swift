#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The files haul reads below a folder's descriptor (the output directory): looked up, opened
/// and listed relative to it, component by component, with the kernel never following a
/// symlink (`O_NOFOLLOW`, `AT_SYMLINK_NOFOLLOW`).
///
/// Where a symlink is allowed (an upload's file, a file of a folder upload), haul resolves it
/// itself (`readlinkat`), one name at a time: a link whose target stays below the root is
/// followed there, one whose target leaves it (`..` past the root, an absolute path elsewhere)
/// is refused with `path_refused`. The file is then opened along the resolved path without
/// following anything, so a link swapped in meanwhile is refused instead of followed.
package struct LocalTree: Sendable {
  /// The root's descriptor, owned by whoever made the tree (`OutputDirectory`, or the caller
  /// of `withTree(at:_:)`).
  let root: Int32
  /// The root's path as given, for absolute link targets written with it.
  let rootPath: String

  /// Why a local path cannot be reached.
  package enum Failure: Error, Sendable, Equatable {
    /// A system call failed with this `errno` (`ENOENT`: nothing there).
    case system(Int32)
    /// The path leads out of the root, or through a symlink where none is allowed.
    case refused(String)
    /// The path names something other than a regular file where one is read.
    case notRegularFile

    /// The failure as a transfer's error, `what` naming the file: `path_refused` for a
    /// refusal (and `ELOOP`), `io` or `disk_full` otherwise (`FileErrors.error`).
    package func transferError(_ what: String) -> TransferError {
      switch self {
      case .system(let code): FileErrors.error(code, what)
      case .refused(let reason): TransferError(.pathRefused, "\(what): \(reason)")
      case .notRegularFile: TransferError(.io, "\(what): not a regular file")
      }
    }
  }

  /// The most symlinks one resolution follows (the kernel's own limit, `MAXSYMLINKS`).
  private static let maxLinks = 40

  /// Runs `body` with the tree of the folder at `path` (opened following symlinks, as the
  /// output directory itself is: it is the user's to choose); `nil` when it cannot be opened.
  package static func withTree<T>(at path: String, _ body: (LocalTree) -> T) -> T? {
    let fd = open(path.isEmpty ? "." : path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    return body(LocalTree(root: fd, rootPath: path))
  }

  /// The components of `relativePath` below the root with every symlink on the way resolved
  /// (when `followsLinks`) or refused: each names a folder or file that is no symlink when it
  /// was looked at. A link whose target leaves the root is refused.
  package func resolve(_ relativePath: String, followsLinks: Bool) throws(Failure) -> [String] {
    var pending = Self.components(relativePath).reversed() as [String]
    var resolved: [String] = []
    var current = dup(root)
    guard current >= 0 else { throw .system(errno) }
    defer { close(current) }
    var links = 0
    while let name = pending.popLast() {
      if name == ".." {
        guard !resolved.isEmpty else { throw .refused("leads out of the output directory") }
        resolved.removeLast()
        let parent = try openFolder(resolved)
        close(current)
        current = parent
        continue
      }
      var info = stat()
      guard fstatat(current, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { throw .system(errno) }
      if info.st_mode & S_IFMT == S_IFLNK {
        guard followsLinks else { throw .refused("\(name) is a symlink") }
        links += 1
        guard links <= Self.maxLinks else { throw .system(ELOOP) }
        let target = try Self.linkTarget(current, name)
        if target.hasPrefix("/") {
          guard let inside = insideRoot(target) else {
            throw .refused("a symlink leads out of the output directory")
          }
          resolved = []
          let top = dup(root)
          guard top >= 0 else { throw .system(errno) }
          close(current)
          current = top
          pending += Self.components(inside).reversed()
        } else {
          pending += Self.components(target).reversed()
        }
        continue
      }
      resolved.append(name)
      guard !pending.isEmpty else { break }
      let next = openat(current, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
      guard next >= 0 else { throw .system(errno) }
      close(current)
      current = next
    }
    guard !resolved.isEmpty else { throw .refused("names no file below the output directory") }
    return resolved
  }

  /// The folder at `components` (resolved: no symlink on the way), opened without following
  /// any; the caller closes it. The root itself for no component.
  package func openFolder(_ components: some Collection<String>) throws(Failure) -> Int32 {
    var current = dup(root)
    guard current >= 0 else { throw .system(errno) }
    for name in components {
      let next = openat(current, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
      let code = errno
      close(current)
      guard next >= 0 else {
        throw code == ELOOP ? .refused("\(name) is a symlink") : .system(code)
      }
      current = next
    }
    return current
  }

  /// The regular file at `relativePath` opened for reading (symlinks resolved as `resolve`
  /// does when `followsLinks`, else refused); the caller closes it. Opened non-blocking, so
  /// a FIFO planted in its place does not hang the run, and refused unless a regular file.
  package func openFile(_ relativePath: String, followsLinks: Bool) throws(Failure) -> Int32 {
    let components = try resolve(relativePath, followsLinks: followsLinks)
    let parent = try openFolder(components.dropLast())
    defer { close(parent) }
    let fd = openat(
      parent, components[components.count - 1],
      O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
    guard fd >= 0 else {
      throw errno == ELOOP ? .refused("a symlink was planted in its place") : .system(errno)
    }
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
      close(fd)
      throw .notRegularFile
    }
    return fd
  }

  /// What is at `relativePath` once its symlinks are resolved (as `resolve` does when
  /// `followsLinks`).
  package func status(of relativePath: String, followsLinks: Bool) throws(Failure) -> FileStatus {
    let components = try resolve(relativePath, followsLinks: followsLinks)
    let parent = try openFolder(components.dropLast())
    defer { close(parent) }
    guard let status = FileStatus.lstat(parent, components[components.count - 1]) else {
      throw .system(errno)
    }
    return status
  }

  /// The names in the folder at `components` (resolved), without `.` and `..`, each with
  /// what it is, not following symlinks; through `openat` and `fdopendir`.
  package func entries(of components: [String]) throws(Failure) -> [(String, FileStatus)] {
    let folder = try openFolder(components)
    guard let stream = fdopendir(folder) else {
      let code = errno
      close(folder)
      throw .system(code)
    }
    defer { closedir(stream) }
    let fd = dirfd(stream)
    var found: [(String, FileStatus)] = []
    while let entry = readdir(stream) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
      }
      guard name != "." && name != "..", let status = FileStatus.lstat(fd, name) else {
        continue
      }
      found.append((name, status))
    }
    return found
  }

  /// `target` (an absolute link target) as a path below the root, `nil` when it lies
  /// elsewhere: compared with the root's real path (`/proc/self/fd`) and with its path as
  /// given, when absolute.
  private func insideRoot(_ target: String) -> String? {
    var prefixes: [String] = []
    if let real = realpath("/proc/self/fd/\(root)", nil) {
      prefixes.append(String(cString: real))
      free(real)
    }
    if rootPath.hasPrefix("/") { prefixes.append(rootPath) }
    for prefix in prefixes {
      let base = prefix.hasSuffix("/") ? prefix : prefix + "/"
      if target.hasPrefix(base) { return String(target.dropFirst(base.count)) }
    }
    return nil
  }

  /// The path's components, without empty ones and `.`.
  private static func components(_ path: String) -> [String] {
    path.split(separator: "/", omittingEmptySubsequences: true).lazy.filter { $0 != "." }
      .map(String.init)
  }

  /// The target of the symlink `name` in `folder`.
  private static func linkTarget(_ folder: Int32, _ name: String) throws(Failure) -> String {
    var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX))
    let count = buffer.withUnsafeMutableBufferPointer { bytes in
      bytes.withMemoryRebound(to: CChar.self) {
        readlinkat(folder, name, $0.baseAddress!, $0.count)
      }
    }
    guard count > 0 else { throw .system(count < 0 ? errno : ENOENT) }
    return String(decoding: buffer[..<count], as: UTF8.self)
  }
}
