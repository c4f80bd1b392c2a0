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
    /// The file's digest differs from the one expected of it (named with its source).
    case digestMismatch(ExpectedDigest)

    var description: String {
      switch self {
      case .missing: "missing"
      case .notRegularFile: "not a regular file"
      case .unreadable(let reason): "cannot read: \(reason)"
      case .size(let actual, let expected): "size \(actual) != expected \(expected)"
      case .digestMismatch(let expected): "\(expected.algorithm) mismatch (\(expected.source))"
      }
    }
  }

  /// The problem with the file at `path`, or nil when it is present and matches `size` and
  /// every digest of `digests` where given. The digests are computed together in one pass of
  /// 1 MiB reads, only when the size matches.
  static func check(path: String, size: Int64?, digests: [ExpectedDigest]) -> Problem? {
    var info = stat()
    guard lstat(path, &info) == 0 else {
      return errno == ENOENT || errno == ENOTDIR
        ? .missing : .unreadable(ProcessEnvironment.errorText())
    }
    guard (info.st_mode & S_IFMT) == S_IFREG else { return .notRegularFile }
    if let size, Int64(info.st_size) != size {
      return .size(actual: Int64(info.st_size), expected: size)
    }
    guard !digests.isEmpty else { return nil }
    switch self.digests(path, ExpectedDigest.algorithms(digests)) {
    case .success(let computed):
      if case .failure(let mismatch) = ExpectedDigest.verify(digests, against: computed) {
        return .digestMismatch(mismatch.expected)
      }
      return nil
    case .failure(let problem):
      return problem
    }
  }

  /// The digests of `algorithms` of the file at `path`, computed together in one pass of
  /// 1 MiB reads (`LocalDownload.hash`, as downloads re-hash a prefix).
  static func digests(_ path: String, _ algorithms: [DigestAlgorithm]) -> Result<
    DigestValues, Problem
  > {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return .failure(.unreadable(ProcessEnvironment.errorText())) }
    defer { close(fd) }
    let set = DigestSet(algorithms)
    do throws(TransferError) {
      _ = try LocalDownload.hash(fd: fd, upTo: nil, into: set, what: path)
    } catch {
      // The message is `cannot read PATH: REASON`; the problem says the rest.
      let prefix = "cannot read \(path): "
      let message = error.message
      return .failure(
        .unreadable(message.hasPrefix(prefix) ? String(message.dropFirst(prefix.count)) : message))
    }
    return .success(set.finalize())
  }
}
