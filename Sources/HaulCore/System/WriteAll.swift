#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes all of `bytes` to the descriptor `fd` with `write(2)`, retrying short writes and
/// `EINTR`. Returns `false` on any other failure, with `errno` set.
///
/// Report files, the console, spooled standard input and the test fixtures write through
/// it; writes at an offset into downloaded files go through `FileErrors.pwriteAll`.
package func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
  writeAll(bytes) { base, count in write(fd, base, count) }
}

/// Writes all of `text`'s UTF-8 bytes to `fd`; see `writeAll(_:_:)`.
package func writeAll(_ fd: Int32, _ text: String) -> Bool {
  var text = text
  return text.withUTF8 { writeAll(fd, UnsafeRawBufferPointer($0)) }
}

/// Hands all of `bytes` to `write` (a `write(2)`-shaped call: bytes written, or -1 with
/// `errno` set), retrying short writes and `EINTR`. Sockets use it with `send(2)` and its
/// flags. Returns `false` on any other failure.
package func writeAll(
  _ bytes: UnsafeRawBufferPointer, through write: (UnsafeRawPointer, Int) -> Int
) -> Bool {
  guard var base = bytes.baseAddress else { return true }
  var remaining = bytes.count
  while remaining > 0 {
    let written = write(base, remaining)
    if written < 0 {
      if errno == EINTR { continue }
      return false
    }
    base += written
    remaining -= written
  }
  return true
}
