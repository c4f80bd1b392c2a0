import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A loopback port on which nothing listens, held for the caller's lifetime: the socket is
/// bound (so no one else gets the port) but not listening, so connections are refused.
public final class RefusingPort: Sendable {
  /// The port, on 127.0.0.1.
  public let port: Int
  private let fd: Int32

  /// Reserves a port the kernel picks.
  public init() throws {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
      }
    }
    guard fd >= 0, ok else {
      let reason = errnoText()
      close(fd)
      throw FixtureError("cannot reserve a port: \(reason)")
    }
    self.fd = fd
    port = Int(UInt16(bigEndian: address.sin_port))
  }

  deinit { close(fd) }
}
