#if canImport(Glibc)
  import Glibc
  internal import CXattr
#elseif canImport(Darwin)
  import Darwin
#endif

extension LocalDownload {
  /// What `--refresh` sends to ask whether the destination changed, or `nil` when it is not
  /// a regular file that can be opened. Opens it without following a symlink and reads its
  /// mtime, length and recorded ETag from the one descriptor; a missing, unreadable or
  /// malformed ETag attribute (or a file system without extended attributes) leaves just
  /// the mtime.
  public func refreshCheck() -> RefreshCheck? {
    let fd = openat(parent, leaf, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
    return RefreshCheck(
      etag: Self.recordedETag(fd), modified: Int(info.st_mtim.tv_sec), size: Int64(info.st_size))
  }

  /// The value of `fd`'s ETag attribute, `nil` when there is none or it cannot be read.
  private static func recordedETag(_ fd: Int32) -> String? {
    #if os(Linux)
      var buffer = [UInt8](repeating: 0, count: RefreshCheck.maxETagLength)
      let count = buffer.withUnsafeMutableBytes {
        fgetxattr(fd, RefreshCheck.etagAttribute, $0.baseAddress, $0.count)
      }
      return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil
    #else
      return nil
    #endif
  }

  /// Notes the ETag of the response whose body fills the partial file (none when `head`
  /// has no valid one): the latest note wins, as for `Last-Modified`. Does nothing unless
  /// the download records ETags, so a run without `--refresh` pays nothing here.
  public func noteETag(of head: ResponseHead) {
    guard recordsETag else { return }
    noteETag(head.value(for: "ETag")?.trimmingASCIIWhitespace())
  }

  /// Notes `value` as the finished file's ETag (a segmented download notes its validator).
  public func noteETag(_ value: String?) {
    guard recordsETag else { return }
    etag.withLock { $0 = value.flatMap { RefreshCheck.isEntityTag($0) ? $0 : nil } }
  }

  /// Writes the noted ETag into the partial file's attribute before the rename, so the file
  /// never appears without it. Best effort: a file system that keeps no user attributes
  /// (tmpfs without `user_xattr`, some network file systems) or refuses this one leaves
  /// the file without, and a refresh then asks by date alone.
  func recordETag(_ fd: Int32) {
    #if os(Linux)
      guard var value = etag.withLock({ $0 }) else { return }
      _ = value.withUTF8 { bytes in
        fsetxattr(fd, RefreshCheck.etagAttribute, bytes.baseAddress, bytes.count, 0)
      }
    #endif
  }
}
