import Foundation

/// A listening socket made for libmicrohttpd, which takes it whole
/// (`MHD_OPTION_LISTEN_SOCKET`) and closes it when its daemon stops: bound, listening,
/// non-blocking and close-on-exec. Made here rather than by libmicrohttpd so that a Unix
/// socket gets the same treatment as TCP, its file a mode of 0600, and a stale file is
/// told from a live server.
struct HTTPListenSocket {
  /// A Unix socket's file, removed when its listener stops if it is still the one bound
  /// (same device and inode), so a later server's socket is never removed by mistake.
  struct SocketFile {
    let path: String
    let device: UInt64
    let inode: UInt64

    func remove() {
      var status = stat()
      guard lstat(path, &status) == 0, UInt64(status.st_dev) == device,
        UInt64(status.st_ino) == inode
      else { return }
      unlink(path)
    }
  }

  let descriptor: Int32
  let listener: HTTPRequest.Listener
  let file: SocketFile?

  /// How many connections the kernel queues before libmicrohttpd accepts them (it accepts
  /// at most 10 per turn of its loop): as many as the system allows, since a SYN dropped on
  /// a full queue costs the client a second before it tries again.
  private static let backlog = SOMAXCONN

  /// A Unix socket at `path`, mode 0600. A socket file nobody answers on (left by a daemon
  /// that died) is removed first; a live one, or a file of another kind, is left alone and
  /// refused.
  static func unix(path: String) throws(HTTPServerError) -> HTTPListenSocket {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
      throw HTTPServerError(.invalidAddress, "the socket path \(path) is empty or too long")
    }
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
    try removeStale(path, address: address)

    let descriptor = try makeSocket(family: AF_UNIX, what: path)
    do throws(HTTPServerError) {
      try bind(descriptor, address, what: path)
    } catch {
      close(descriptor)
      throw error
    }
    // Bound: the file is this socket's, and goes if anything below fails. Nobody can
    // connect before `listen`, so the mode is set before anyone could.
    do throws(HTTPServerError) {
      guard chmod(path, 0o600) == 0 else { throw systemError("chmod 0600 \(path)") }
      var status = stat()
      guard lstat(path, &status) == 0 else { throw systemError("stat \(path)") }
      try listen(descriptor, what: path)
      let file = SocketFile(
        path: path, device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
      return HTTPListenSocket(descriptor: descriptor, listener: .unix, file: file)
    } catch {
      unlink(path)
      close(descriptor)
      throw error
    }
  }

  /// A TCP socket on `host`, an IPv4 or IPv6 literal (brackets allowed), and `port`, 0 for
  /// one the system picks. An IPv6 socket takes IPv6 only.
  static func tcp(host: String, port: Int) throws(HTTPServerError) -> HTTPListenSocket {
    guard (0...65535).contains(port) else {
      throw HTTPServerError(.invalidAddress, "the port \(port) is out of range")
    }
    var literal = host
    if literal.hasPrefix("["), literal.hasSuffix("]") {
      literal = String(literal.dropFirst().dropLast())
    }
    var v4 = in_addr()
    var v6 = in6_addr()
    let descriptor: Int32
    if inet_pton(AF_INET, literal, &v4) == 1 {
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = in_port_t(port).bigEndian
      address.sin_addr = v4
      descriptor = try makeSocket(family: AF_INET, what: host)
      do throws(HTTPServerError) {
        try bind(descriptor, address, what: "\(host) port \(port)")
      } catch {
        close(descriptor)
        throw error
      }
    } else if inet_pton(AF_INET6, literal, &v6) == 1 {
      var address = sockaddr_in6()
      address.sin6_family = sa_family_t(AF_INET6)
      address.sin6_port = in_port_t(port).bigEndian
      address.sin6_addr = v6
      descriptor = try makeSocket(family: AF_INET6, what: host)
      do throws(HTTPServerError) {
        var on: Int32 = 1
        _ = setsockopt(
          descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &on, socklen_t(MemoryLayout<Int32>.size))
        try bind(descriptor, address, what: "\(host) port \(port)")
      } catch {
        close(descriptor)
        throw error
      }
    } else {
      throw HTTPServerError(.invalidAddress, "\(host) is not an IPv4 or IPv6 address")
    }
    do throws(HTTPServerError) {
      try listen(descriptor, what: host)
      return HTTPListenSocket(
        descriptor: descriptor, listener: try boundAddress(descriptor), file: nil)
    } catch {
      close(descriptor)
      throw error
    }
  }

  // MARK: Steps

  private static func removeStale(_ path: String, address: sockaddr_un) throws(HTTPServerError) {
    var status = stat()
    guard lstat(path, &status) == 0 else { return }
    guard status.st_mode & S_IFMT == S_IFSOCK else {
      throw HTTPServerError(.addressInUse, "\(path) exists and is not a socket")
    }
    let probe = try makeSocket(family: AF_UNIX, what: path)
    defer { close(probe) }
    var address = address
    let answered = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    // A full backlog (EAGAIN) is a live server too.
    if answered == 0 || errno == EAGAIN {
      throw HTTPServerError(.addressInUse, "a server answers on \(path)")
    }
    guard errno == ECONNREFUSED || errno == ENOENT else { throw systemError("connect \(path)") }
    unlink(path)
  }

  private static func makeSocket(family: Int32, what: String) throws(HTTPServerError) -> Int32 {
    let type =
      Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
      | Int32(SOCK_NONBLOCK.rawValue)
    let descriptor = socket(family, type, 0)
    guard descriptor >= 0 else { throw systemError("socket for \(what)") }
    if family != AF_UNIX {
      var on: Int32 = 1
      _ = setsockopt(
        descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
    }
    return descriptor
  }

  private static func bind<Address>(
    _ descriptor: Int32, _ address: Address, what: String
  ) throws(HTTPServerError) {
    var address = address
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Foundation.bind(descriptor, $0, socklen_t(MemoryLayout<Address>.size))
      }
    }
    guard result == 0 else {
      if errno == EADDRINUSE { throw HTTPServerError(.addressInUse, "\(what) is in use") }
      throw systemError("bind \(what)")
    }
  }

  private static func listen(_ descriptor: Int32, what: String) throws(HTTPServerError) {
    guard Foundation.listen(descriptor, backlog) == 0 else { throw systemError("listen \(what)") }
  }

  /// The numeric address and port a TCP socket is bound to.
  private static func boundAddress(
    _ descriptor: Int32
  ) throws(HTTPServerError) -> HTTPRequest.Listener {
    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    let result = withUnsafeMutablePointer(to: &storage) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        getsockname(descriptor, $0, &length)
      }
    }
    guard result == 0 else { throw systemError("getsockname") }
    var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
    let port: UInt16
    if Int32(storage.ss_family) == AF_INET {
      var address = withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in.self) }
      inet_ntop(AF_INET, &address.sin_addr, &text, socklen_t(text.count))
      port = UInt16(bigEndian: address.sin_port)
    } else {
      var address = withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in6.self) }
      inet_ntop(AF_INET6, &address.sin6_addr, &text, socklen_t(text.count))
      port = UInt16(bigEndian: address.sin6_port)
    }
    let host = text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    return .tcp(host: host, port: Int(port))
  }

  private static func systemError(_ what: String) -> HTTPServerError {
    HTTPServerError(.socket, "\(what): \(String(cString: strerror(errno)))")
  }
}
