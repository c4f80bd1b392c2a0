#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The file an upload strategy sends, as it is when an attempt begins: its size, and its
/// modification time, which the strategy's state records beside the size so that a file
/// changed since starts its upload over.
package struct UploadSource: Sendable, Hashable {
  /// The file's size in bytes.
  package var size: Int64
  /// The file's modification time, in seconds since 1970.
  package var modified: Double

  /// The upload's `file`, opened through the output directory (`UploadFile`, a regular file),
  /// as it is now (`fstat`); the failure (`io`, naming `name`) when it cannot be looked at.
  static func inspect(_ file: UploadFile, name: String) -> Result<UploadSource, AttemptFailure> {
    var info = stat()
    guard fstat(file.descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
      return .failure(AttemptFailure(error: FileErrors.error(errno, "cannot read \(name)")))
    }
    let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
    return .success(UploadSource(size: Int64(info.st_size), modified: modified))
  }
}
