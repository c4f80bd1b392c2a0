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

  /// Writes `state` to `path`, making its folder (owner-only) when it is missing.
  package static func write(_ state: some Encodable, to path: String) throws(TransferError) {
    do {
      try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
    } catch {
      throw TransferError(.io, "cannot make the upload state folder .haul/uploads")
    }
    guard let data = try? JSONEncoder().encode(state) else {
      throw TransferError(.io, "cannot encode the upload state")
    }
    let temporary = path + ".tmp"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard fd >= 0 else { throw FileErrors.error(errno, "cannot write the upload state") }
    defer { close(fd) }
    let written = data.withUnsafeBytes { writeAll(fd, $0) }
    guard written, fsync(fd) == 0, rename(temporary, path) == 0 else {
      throw FileErrors.error(errno, "cannot write the upload state")
    }
  }
}
