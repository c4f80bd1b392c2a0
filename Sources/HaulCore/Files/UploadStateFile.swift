import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The durable write of an upload's state (`.haul/uploads/`), shared by the upload
/// strategies (resumable uploads, multipart uploads): encoded as JSON into a temporary file beside it, synced, then renamed
/// into place, so a crash leaves the old state or the new, never half of one.
package enum UploadStateFile {
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
