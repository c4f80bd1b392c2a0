import Foundation
import Glibc

/// Where the daemon keeps its state and its token (docs/manual.md, "The background
/// service").
public enum ServicePaths {
  /// `$XDG_STATE_HOME/haul`, else `~/.local/state/haul`.
  public static func stateDirectory(_ environment: [String: String]) -> String {
    if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/haul" }
    let home = environment["HOME"] ?? NSHomeDirectory()
    return home + "/.local/state/haul"
  }

  /// Creates `path` and its missing parents; the last one gets mode 0700, and an existing
  /// one that others could enter is narrowed to it.
  public static func makePrivateDirectories(_ path: String) throws(ServiceError) {
    do {
      try FileManager.default.createDirectory(
        atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    } catch {
      throw ServiceError(.io, "cannot create '\(path)': \(error.localizedDescription)")
    }
    try Daemon.makePrivateDirectory(path)
  }

  /// The TCP token: `file`'s content (white space trimmed), else the state directory's
  /// `token`, made at first start from 32 random bytes (hex) with mode 0600.
  public static func token(file: String?, state: String) throws(ServiceError) -> String {
    let path = file ?? state + "/token"
    if let data = FileManager.default.contents(atPath: path) {
      let token = String(decoding: data, as: UTF8.self).trimmingCharacters(
        in: .whitespacesAndNewlines)
      guard token.utf8.count >= 16 else {
        throw ServiceError(.usage, "the token in '\(path)' is shorter than 16 characters")
      }
      return token
    }
    guard file == nil else { throw ServiceError(.usage, "cannot read --token-file '\(path)'") }
    var generator = SystemRandomNumberGenerator()
    let token = (0..<4).map { _ -> String in
      let hex = String(generator.next() as UInt64, radix: 16)
      return String(repeating: "0", count: 16 - hex.count) + hex
    }.joined()
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      throw ServiceError(.io, "cannot create '\(path)': \(String(cString: strerror(errno)))")
    }
    defer { close(fd) }
    let bytes = Array((token + "\n").utf8)
    guard bytes.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == bytes.count,
      fsync(fd) == 0
    else { throw ServiceError(.io, "cannot write '\(path)'") }
    return token
  }
}
