import Foundation
import Glibc

/// The file `listen` in the state directory: the TCP address `haul serve --listen` is bound
/// to (`127.0.0.1:PORT`, the port the system chose for `:0`), so that `haul page` can print
/// the page's address without being told it. Written (mode 0600) once the listener is
/// bound, removed when the daemon stops.
public enum ListenFile {
  /// The file's path in state directory `state`.
  public static func path(state: String) -> String { state + "/listen" }

  /// Writes `address` (`HOST:PORT`, an IPv6 host in brackets), replacing a file left by a
  /// daemon that was killed.
  public static func write(state: String, address: String) throws(ServiceError) {
    let target = path(state: state)
    let temporary = target + ".tmp"
    unlink(temporary)
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      throw ServiceError(.io, "cannot create '\(temporary)': \(String(cString: strerror(errno)))")
    }
    let bytes = Array((address + "\n").utf8)
    let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    close(fd)
    guard written == bytes.count, rename(temporary, target) == 0 else {
      unlink(temporary)
      throw ServiceError(.io, "cannot write '\(target)'")
    }
  }

  /// The address in state directory `state`, or nil when no daemon listens on TCP there.
  public static func read(state: String) -> String? {
    guard let data = FileManager.default.contents(atPath: path(state: state)) else { return nil }
    let text = String(decoding: data, as: UTF8.self).trimmingCharacters(
      in: .whitespacesAndNewlines)
    return text.isEmpty ? nil : text
  }

  /// Removes the file, when the daemon stops.
  public static func remove(state: String) { unlink(path(state: state)) }
}
