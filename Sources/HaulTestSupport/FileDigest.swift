import Foundation
import HaulCore

/// The length and SHA-256 of a file on disk, read back through the library's file hasher
/// (`LocalDownload.hash`): an independent check of what a transfer left there, not the digest
/// the writer computed as it went.
public struct FileDigest: Sendable, Hashable {
  public var length: Int64
  public var sha256: String

  /// Reads the file at `path`; `nil` when it cannot be opened or read.
  public init?(path: String) {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    let hasher = DigestSet([.sha256])
    guard let length = try? LocalDownload.hash(fd: fd, upTo: nil, into: hasher),
      let sha256 = hasher.finalize()[.sha256]
    else { return nil }
    self.length = length
    self.sha256 = sha256
  }

  public init(length: Int64, sha256: String) {
    self.length = length
    self.sha256 = sha256
  }
}
