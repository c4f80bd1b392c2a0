import Foundation
import HaulCore

/// One accepted connection of the `FaultServer`: blocking reads and writes on its socket.
/// Confined to the connection's thread.
final class FaultConnection {
  let fd: Int32
  let id: Int
  /// Bytes received but not consumed yet.
  private var pending: [UInt8] = []
  private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)

  /// The largest request head accepted.
  static let maxHeadBytes = 1 << 20

  enum HeadResult {
    case request(FaultRequest)
    case closed
    case malformed
  }

  init(fd: Int32, id: Int) {
    self.fd = fd
    self.id = id
  }

  deinit { scratch.deallocate() }

  /// Reads the next request head; `.closed` when the peer closed (or the socket failed).
  func readHead() -> HeadResult {
    var searchFrom = 0
    while true {
      if let end = Self.headEnd(in: pending, from: searchFrom) {
        let head = String(decoding: pending[..<end], as: UTF8.self)
        pending.removeFirst(end + 4)
        return FaultRequest(head: head).map(HeadResult.request) ?? .malformed
      }
      if pending.count > Self.maxHeadBytes { return .malformed }
      searchFrom = max(0, pending.count - 3)
      guard receiveMore() else { return .closed }
    }
  }

  /// Reads a request's body (by `Content-Length` or chunked), handing each piece to
  /// `consume`; stops early, returning `false`, when `consume` returns `false` or the socket
  /// fails. Sends `100 Continue` first when the client expects it.
  func readBody(of request: FaultRequest, _ consume: (UnsafeRawBufferPointer) -> Bool) -> Bool {
    if request.value(for: "Expect")?.lowercased() == "100-continue" {
      guard send("HTTP/1.1 100 Continue\r\n\r\n") else { return false }
    }
    if let length = request.value(for: "Content-Length").flatMap({ Int64($0) }) {
      return readExactly(length, consume)
    }
    guard request.value(for: "Transfer-Encoding")?.lowercased().contains("chunked") == true
    else { return true }
    while true {
      guard let line = readLine(),
        let size = Int64(
          line.split(separator: ";")[0].trimmingCharacters(in: .whitespaces),
          radix: 16)
      else { return false }
      if size == 0 {
        while let trailer = readLine() {
          if trailer.isEmpty { return true }
        }
        return false
      }
      guard readExactly(size, consume), readLine() == "" else { return false }
    }
  }

  /// Sends all of `bytes`; `false` when the peer is gone.
  func send(_ bytes: UnsafeRawBufferPointer) -> Bool {
    writeAll(bytes) { base, count in Glibc.send(fd, base, count, Int32(MSG_NOSIGNAL)) }
  }

  /// Sends `text` as UTF-8; `false` when the peer is gone.
  func send(_ text: String) -> Bool {
    var text = text
    return text.withUTF8 { send(UnsafeRawBufferPointer($0)) }
  }

  /// Holds back what is sent from now on (`TCP_CORK`) instead of putting it on the wire at
  /// once, so that a reset on close (`resetOnClose`) discards it unsent.
  func holdBack() {
    var yes: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_CORK, &yes, socklen_t(MemoryLayout<Int32>.size))
  }

  /// Makes closing the socket reset the connection (`SO_LINGER` 0), as a server closing
  /// with a request's body unread does, whether or not that body has arrived yet.
  func resetOnClose() {
    var option = linger(l_onoff: 1, l_linger: 0)
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
  }

  /// Waits up to `seconds`, returning early with `false` when the peer closed its side or
  /// `keepGoing` turns false (checked every 20 ms).
  func pause(_ seconds: Double, while keepGoing: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      guard keepGoing() else { return false }
      var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let ready = poll(&poller, 1, Int32(min(20, max(1, deadline.timeIntervalSinceNow * 1000))))
      if ready > 0 {
        if poller.revents & Int16(POLLHUP | POLLERR) != 0 { return false }
        var byte: UInt8 = 0
        let peeked = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if peeked == 0 { return false }
        usleep(20_000)
      }
    }
    return keepGoing()
  }

  private func readExactly(_ count: Int64, _ consume: (UnsafeRawBufferPointer) -> Bool) -> Bool {
    var remaining = count
    if !pending.isEmpty {
      let take = Int(min(Int64(pending.count), remaining))
      let keepGoing = pending.withUnsafeBytes {
        consume(UnsafeRawBufferPointer(rebasing: $0[..<take]))
      }
      pending.removeFirst(take)
      remaining -= Int64(take)
      guard keepGoing else { return false }
    }
    while remaining > 0 {
      let want = Int(min(Int64(scratch.count), remaining))
      let n = recv(fd, scratch.baseAddress, want, 0)
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { return false }
      remaining -= Int64(n)
      guard consume(UnsafeRawBufferPointer(rebasing: scratch[..<n])) else { return false }
    }
    return true
  }

  /// Reads one CRLF-terminated line (without the CRLF); `nil` when the peer is gone.
  private func readLine() -> String? {
    var searchFrom = 0
    while true {
      if let index = Self.crlf(in: pending, from: searchFrom) {
        let line = String(decoding: pending[..<index], as: UTF8.self)
        pending.removeFirst(index + 2)
        return line
      }
      if pending.count > Self.maxHeadBytes { return nil }
      searchFrom = max(0, pending.count - 1)
      guard receiveMore() else { return nil }
    }
  }

  private func receiveMore() -> Bool {
    while true {
      let n = recv(fd, scratch.baseAddress, scratch.count, 0)
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { return false }
      pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[..<n]))
      return true
    }
  }

  private static func headEnd(in bytes: [UInt8], from start: Int) -> Int? {
    guard bytes.count >= 4 else { return nil }
    var i = start
    while i + 3 < bytes.count {
      if bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
        return i
      }
      i += 1
    }
    return nil
  }

  private static func crlf(in bytes: [UInt8], from start: Int) -> Int? {
    var i = start
    while i + 1 < bytes.count {
      if bytes[i] == 13 && bytes[i + 1] == 10 { return i }
      i += 1
    }
    return nil
  }
}
