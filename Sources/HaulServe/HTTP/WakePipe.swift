import Foundation

/// A non-blocking pipe that wakes a thread blocked in `poll`: another thread writes a byte
/// (`wake`), the polling thread sees `readEnd` readable and empties it (`drain`). The
/// service's own polling threads (`HTTPStreamWatcher`, `WebSocketLoop`) each keep one.
struct WakePipe: Sendable {
  /// The end the polling thread polls for `POLLIN`.
  let readEnd: Int32
  private let writeEnd: Int32

  /// `POLLRDHUP` (Linux), which Glibc's module leaves out: the peer closed its end of a
  /// socket. What the polling threads watch their sockets for, beside the pipe.
  static let peerHangUp: Int16 = 0x2000

  init() throws(HTTPServerError) {
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else {
      throw HTTPServerError(.socket, "pipe: \(String(cString: strerror(errno)))")
    }
    for end in ends {
      _ = fcntl(end, F_SETFD, FD_CLOEXEC)
      _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
    }
    (readEnd, writeEnd) = (ends[0], ends[1])
  }

  /// Wakes the polling thread; a full pipe already will.
  func wake() {
    var byte: UInt8 = 1
    _ = Foundation.write(writeEnd, &byte, 1)
  }

  /// Empties the pipe, on the polling thread.
  func drain() {
    var bytes = [UInt8](repeating: 0, count: 64)
    while read(readEnd, &bytes, bytes.count) > 0 {}
  }

  func close() {
    Foundation.close(readEnd)
    Foundation.close(writeEnd)
  }
}
