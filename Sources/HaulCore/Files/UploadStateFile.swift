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
package enum UploadStateFile {
  /// The state file named by `key` (what tells one upload from another: the strategy's
  /// protocol, the URL, the entry's path) in `directory`, the output directory: a digest of
  /// the key, never the names themselves, under `.haul/uploads/`.
  package static func path(directory: String, key: String) -> String {
    let name = SHA256.hex(of: Array(key.utf8))
    return directory + "/.haul/uploads/" + name.prefix(32) + ".json"
  }

  /// Writes `state` to `path`, making its folder (owner-only) when it is missing. The folder
  /// may go between its making and the write (`remove(_:)` of another upload, another run's
  /// `OtherRuns.leave()`): then it is made again.
  package static func write(_ state: some Encodable, to path: String) throws(TransferError) {
    guard let data = try? JSONEncoder().encode(state) else {
      throw TransferError(.io, "cannot encode the upload state")
    }
    let temporary = path + ".tmp"
    var fd: Int32 = -1
    for _ in 0..<100 {
      do {
        try FileManager.default.createDirectory(
          atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
          attributes: [.posixPermissions: 0o700])
      } catch {
        throw TransferError(.io, "cannot make the upload state folder .haul/uploads")
      }
      fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
      if fd >= 0 || errno != ENOENT { break }
    }
    guard fd >= 0 else { throw FileErrors.error(errno, "cannot write the upload state") }
    defer { close(fd) }
    let written = data.withUnsafeBytes { writeAll(fd, $0) }
    guard written, fsync(fd) == 0, rename(temporary, path) == 0 else {
      throw FileErrors.error(errno, "cannot write the upload state")
    }
  }

  /// Removes the state file at `path`, if any (and the temporary file a crash mid-write left
  /// beside it), then its folder `.haul/uploads` and `.haul`
  /// when they are left empty, so that a finished upload leaves nothing in the output
  /// directory. Removing an empty folder is safe at any moment: one with anything in it
  /// stays, and whoever makes a file in it makes the folder again when it finds it gone.
  package static func remove(_ path: String) {
    unlink(path)
    unlink(path + ".tmp")
    let uploads = (path as NSString).deletingLastPathComponent
    guard rmdir(uploads) == 0 else { return }
    rmdir((uploads as NSString).deletingLastPathComponent)
  }
}
