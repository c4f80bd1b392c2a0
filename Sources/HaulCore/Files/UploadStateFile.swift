import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where an upload's state lies (`.haul/uploads/`) and its durable write, shared by the
/// upload strategies (resumable uploads, multipart uploads, through `UploadState`): encoded
/// as JSON into a temporary file beside it, synced, then renamed into place, so a crash
/// leaves the old state or the new, never half of one.
///
/// Every file and folder here is reached relative to the output directory's descriptor
/// without following a symlink (`openat`, `mkdirat`, `renameat`, `unlinkat` with
/// `O_NOFOLLOW`): a symlink planted at `.haul`, `.haul/uploads` or the state file fails the
/// write with `path_refused` and is never read through nor removed.
package enum UploadStateFile {
  /// The folder below the output directory that holds the states.
  private static let folder = "/.haul/uploads/"

  /// The state file named by `key` (what tells one upload from another: the strategy's
  /// protocol, the URL, the entry's path) in `directory`, the output directory: a digest of
  /// the key, never the names themselves, under `.haul/uploads/`.
  package static func path(directory: String, key: String) -> String {
    let name = SHA256.hex(of: Array(key.utf8))
    return directory + folder + name.prefix(32) + ".json"
  }

  /// Writes `state` to `path` (one `path(directory:key:)` made), making its folders
  /// (owner-only) when they are missing. The folder may go between its making and the write
  /// (`remove(_:)` of another upload, another run's `OtherRuns.leave()`): then it is made
  /// again.
  package static func write(_ state: some Encodable, to path: String) throws(TransferError) {
    guard let data = try? JSONEncoder().encode(state) else {
      throw TransferError(.io, "cannot encode the upload state")
    }
    let (directory, name) = split(path)
    let temporary = name + ".tmp"
    for _ in 0..<100 {
      let uploads = try openFolders(of: directory)
      defer { close(uploads) }
      let fd = openat(
        uploads, temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
      if fd < 0 && errno == ENOENT { continue }
      guard fd >= 0 else { throw FileErrors.error(errno, "cannot write the upload state") }
      defer { close(fd) }
      let written = data.withUnsafeBytes { writeAll(fd, $0) }
      guard written, fsync(fd) == 0, renameat(uploads, temporary, uploads, name) == 0 else {
        throw FileErrors.error(errno, "cannot write the upload state")
      }
      return
    }
    throw FileErrors.error(ENOENT, "cannot write the upload state")
  }

  /// The bytes of the state file at `path`, `nil` when there is none or it cannot be read
  /// (a symlink in its place or on the way included).
  package static func read(_ path: String) -> Data? {
    let (directory, name) = split(path)
    guard let uploads = try? openFolders(of: directory, create: false) else { return nil }
    defer { close(uploads) }
    let fd = openat(uploads, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 16 << 10)
    while true {
      let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count >= 0 else { return nil }
      if count == 0 { return data }
      data.append(contentsOf: buffer[..<count])
    }
  }

  /// Removes the state file at `path`, if any (and the temporary file a crash mid-write left
  /// beside it), then its folder `.haul/uploads` and `.haul`
  /// when they are left empty, so that a finished upload leaves nothing in the output
  /// directory. Removing an empty folder is safe at any moment: one with anything in it
  /// stays, and whoever makes a file in it makes the folder again when it finds it gone.
  package static func remove(_ path: String) {
    let (directory, name) = split(path)
    let root = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard root >= 0 else { return }
    defer { close(root) }
    let haul = openat(root, ".haul", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard haul >= 0 else { return }
    defer { close(haul) }
    let uploads = openat(haul, "uploads", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard uploads >= 0 else { return }
    unlinkat(uploads, name, 0)
    unlinkat(uploads, name + ".tmp", 0)
    close(uploads)
    guard unlinkat(haul, "uploads", AT_REMOVEDIR) == 0 else { return }
    unlinkat(root, ".haul", AT_REMOVEDIR)
  }

  /// The output directory and the state file's name in `.haul/uploads` of `path`.
  private static func split(_ path: String) -> (directory: String, name: String) {
    guard let range = path.range(of: folder, options: .backwards) else {
      return (".", path)
    }
    return (String(path[..<range.lowerBound]), String(path[range.upperBound...]))
  }

  /// `.haul/uploads` of the output directory at `directory`, opened without following a
  /// symlink and made (owner-only) where missing when `create`; the caller closes it.
  private static func openFolders(of directory: String, create: Bool = true)
    throws(TransferError) -> Int32
  {
    let root = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard root >= 0 else { throw FileErrors.error(errno, "cannot open the output directory") }
    var current = root
    for name in [".haul", "uploads"] {
      var next = openat(current, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
      if next < 0 && errno == ENOENT && create {
        if mkdirat(current, name, 0o700) != 0 && errno != EEXIST {
          let code = errno
          close(current)
          throw FileErrors.error(code, "cannot make the upload state folder .haul/uploads")
        }
        next = openat(current, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
      }
      let code = errno
      close(current)
      guard next >= 0 else {
        if code == ELOOP || code == ENOTDIR {
          throw TransferError(
            .pathRefused, "the upload state folder .haul/uploads: a symlink or not a folder")
        }
        throw FileErrors.error(code, "cannot open the upload state folder .haul/uploads")
      }
      current = next
    }
    return current
  }
}
