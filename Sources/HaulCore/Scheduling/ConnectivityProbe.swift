#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Checks whether a host accepts TCP connections: how haul notices that a server (or the
/// network) that went away is back, without spending any entry's retries.
enum ConnectivityProbe {
  /// Tries to open (and at once closes) a TCP connection to `host`:`port`, waiting at most
  /// `timeout` seconds. Blocking: call it off the cooperative pool.
  static func canConnect(host: String, port: Int, timeout: Double) -> Bool {
    var hints = addrinfo()
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var list: UnsafeMutablePointer<addrinfo>?
    let name = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
    guard getaddrinfo(name, String(port), &hints, &list) == 0, let list else { return false }
    defer { freeaddrinfo(list) }
    var cursor: UnsafeMutablePointer<addrinfo>? = list
    while let info = cursor {
      defer { cursor = info.pointee.ai_next }
      let fd = socket(
        info.pointee.ai_family,
        info.pointee.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
        info.pointee.ai_protocol)
      guard fd >= 0 else { continue }
      defer { close(fd) }
      if connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return true }
      guard errno == EINPROGRESS else { continue }
      var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
      guard poll(&poller, 1, Int32(timeout * 1000)) == 1 else { continue }
      var error: Int32 = 0
      var length = socklen_t(MemoryLayout<Int32>.size)
      if getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 && error == 0 { return true }
    }
    return false
  }
}
