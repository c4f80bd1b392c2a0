import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Every name created in a folder, or moved into it, while a test's step runs: what a run
/// wrote there even when it removed it again before the step ended (a temporary file).
/// Watched through inotify, whose events the kernel queues until they are read, so nothing
/// needs to read them while the step runs.
public enum FolderCreations {
  /// Runs `body` while `folder` (which must exist) is watched; returns what `body` returned
  /// and the names created in the folder or moved into it, in order, once each time.
  public static func during<T>(
    _ folder: String, _ body: () async throws -> T
  ) async throws -> (result: T, created: [String]) {
    let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
    guard descriptor >= 0 else { throw FixtureError("inotify_init1: \(errnoText())") }
    defer { close(descriptor) }
    let mask = UInt32(IN_CREATE | IN_MOVED_TO)
    guard inotify_add_watch(descriptor, folder, mask) >= 0 else {
      throw FixtureError("cannot watch \(folder): \(errnoText())")
    }
    let result = try await body()
    return (result, try names(from: descriptor))
  }

  /// The names of the events queued on `descriptor`, until none is left.
  private static func names(from descriptor: Int32) throws -> [String] {
    var names: [String] = []
    var buffer = [UInt8](repeating: 0, count: 64 << 10)
    let header = MemoryLayout<inotify_event>.size
    while true {
      let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
      if count < 0, errno == EAGAIN { return names }
      guard count > 0 else { throw FixtureError("cannot read inotify: \(errnoText())") }
      var position = 0
      while position + header <= count {
        let event = buffer.withUnsafeBytes {
          $0.loadUnaligned(fromByteOffset: position, as: inotify_event.self)
        }
        if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
          throw FixtureError("inotify's queue overflowed: names were lost")
        }
        let start = position + header
        let name = buffer[start..<start + Int(event.len)].prefix { $0 != 0 }
        if !name.isEmpty { names.append(String(decoding: name, as: UTF8.self)) }
        position = start + Int(event.len)
      }
    }
  }
}
