#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Anonymous scratch files for output written as a run goes and read back at its end (the
/// report's transfers, the `--failed` lines).
enum SpoolFile {
  /// A new file in `directory`, named `.haul-NAME-XXXXXX` and unlinked at once, so a crash
  /// leaves nothing behind; its descriptor, or -1 (with `errno` set) when it cannot be made.
  static func create(in directory: String, name: String) -> Int32 {
    var template = Array((directory + "/.haul-\(name)-XXXXXX").utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else { return -1 }
    template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    return fd
  }
}
