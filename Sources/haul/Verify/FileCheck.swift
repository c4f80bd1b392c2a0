import Glibc
import HaulCore

/// Checks one local file against what the manifest expects of it, without the network.
enum FileCheck {
  /// What is wrong with a file, as `verify` prints it after the path.
  enum Problem: Error, Equatable, CustomStringConvertible {
    case missing
    case notRegularFile
    case unreadable(String)
    case size(actual: Int64, expected: Int64)
    case sha256Mismatch

    var description: String {
      switch self {
      case .missing: "missing"
      case .notRegularFile: "not a regular file"
      case .unreadable(let reason): "cannot read: \(reason)"
      case .size(let actual, let expected): "size \(actual) != expected \(expected)"
      case .sha256Mismatch: "sha256 mismatch"
      }
    }
  }

  /// The problem with the file at `path`, or nil when it is present and matches `size` and
  /// `sha256` where given. The digest is computed in 1 MiB reads, only when the size matches.
  static func check(path: String, size: Int64?, sha256: String?) -> Problem? {
    var info = stat()
    guard lstat(path, &info) == 0 else {
      return errno == ENOENT || errno == ENOTDIR
        ? .missing : .unreadable(ProcessEnvironment.errorText())
    }
    guard (info.st_mode & S_IFMT) == S_IFREG else { return .notRegularFile }
    if let size, Int64(info.st_size) != size {
      return .size(actual: Int64(info.st_size), expected: size)
    }
    guard let sha256 else { return nil }
    switch digest(path) {
    case .success(let actual): return actual == sha256.lowercased() ? nil : .sha256Mismatch
    case .failure(let problem): return problem
    }
  }

  /// The SHA-256 of the file at `path`, read through the library's one file hasher
  /// (`LocalDownload.hash`, the one a resume uses to re-hash a partial file).
  static func digest(_ path: String) -> Result<String, Problem> {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return .failure(.unreadable(ProcessEnvironment.errorText())) }
    defer { close(fd) }
    let hasher = SHA256()
    do throws(TransferError) {
      _ = try LocalDownload.hash(fd: fd, upTo: nil, into: hasher)
    } catch {
      return .failure(.unreadable(error.message))
    }
    return .success(hasher.finalize())
  }
}
