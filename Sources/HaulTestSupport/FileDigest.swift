import Foundation
import HaulCore

/// The length and SHA-256 of a file on disk, read back in chunks: an independent check of
/// what a transfer left there (not the digest the writer computed as it went).
public struct FileDigest: Sendable, Hashable {
  public var length: Int64
  public var sha256: String

  /// Reads the file at `path`; `nil` when it cannot be opened or read.
  public init?(path: String) {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    let hasher = SHA256()
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 8)
    defer { buffer.deallocate() }
    var length: Int64 = 0
    while true {
      let n = read(fd, buffer.baseAddress, buffer.count)
      if n < 0 && errno == EINTR { continue }
      guard n >= 0 else { return nil }
      if n == 0 { break }
      hasher.update(UnsafeRawBufferPointer(rebasing: buffer[..<n]))
      length += Int64(n)
    }
    self.length = length
    self.sha256 = hasher.finalize()
  }

  public init(length: Int64, sha256: String) {
    self.length = length
    self.sha256 = sha256
  }
}
