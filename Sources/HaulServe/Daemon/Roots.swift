import Glibc

/// The folders a daemon may write in (`--root`): every job's output directory must lie
/// inside one of them once symlinks are resolved, so no API call can make the daemon write
/// elsewhere. The rule is checked when a job is added and again before each of its runs,
/// since a folder can be replaced by a symlink in between.
public struct Roots: Sendable, Equatable {
  /// The roots, absolute and with every symlink resolved.
  public let paths: [String]

  /// Resolves `paths` (each must be an existing directory).
  public init(_ paths: [String]) throws(ServiceError) {
    var resolved: [String] = []
    for path in paths {
      guard let real = Self.realPath(path), Self.isDirectory(real) else {
        throw ServiceError(.usage, "--root '\(path)' is not a directory")
      }
      resolved.append(real)
    }
    self.paths = resolved
  }

  /// The output directory `output` names, absolute, with its existing part's symlinks
  /// resolved; a relative `output` is taken inside the first root, and none means the first
  /// root. Refused (`path_refused`) outside every root, with a `..` segment, or when a part
  /// of it exists and is not a directory.
  public func resolve(_ output: String?) throws(ServiceError) -> String {
    guard let first = paths.first else {
      throw ServiceError(.pathRefused, "the daemon has no root")
    }
    guard let output, !output.isEmpty else { return first }
    guard !output.utf8.contains(0) else {
      throw ServiceError(.pathRefused, "the output directory holds a NUL byte")
    }
    let absolute = output.hasPrefix("/") ? output : first + "/" + output
    let segments = absolute.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    if segments.contains("..") {
      throw ServiceError(.pathRefused, "the output directory '\(output)' climbs with '..'")
    }
    // The longest part that exists is resolved; the rest cannot hold a symlink yet.
    var existing = segments.filter { $0 != "." }
    var missing: [String] = []
    var base: String?
    while base == nil {
      let candidate = "/" + existing.joined(separator: "/")
      if let real = Self.realPath(candidate) {
        guard Self.isDirectory(real) else {
          throw ServiceError(.pathRefused, "'\(candidate)' is not a directory")
        }
        base = real
      } else if existing.isEmpty {
        base = "/"
      } else {
        missing.insert(existing.removeLast(), at: 0)
      }
    }
    var resolved = base!
    for segment in missing { resolved += (resolved.hasSuffix("/") ? "" : "/") + segment }
    guard contains(resolved) else {
      throw ServiceError(
        .pathRefused, "the output directory '\(output)' is outside the daemon's roots")
    }
    return resolved
  }

  /// Whether the resolved path `path` lies inside a root (or is one).
  public func contains(_ path: String) -> Bool {
    paths.contains { root in
      path == root || path.hasPrefix(root == "/" ? "/" : root + "/")
    }
  }

  static func realPath(_ path: String) -> String? {
    guard let pointer = realpath(path, nil) else { return nil }
    defer { free(pointer) }
    return String(cString: pointer)
  }

  static func isDirectory(_ path: String) -> Bool {
    var status = stat()
    return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
  }
}
