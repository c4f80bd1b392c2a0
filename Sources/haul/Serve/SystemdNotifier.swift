import Glibc

/// Tells systemd the daemon's state through `$NOTIFY_SOCKET` (the `sd_notify` protocol: one
/// datagram of `KEY=VALUE` lines), so a `Type=notify` unit is started only once the control
/// socket listens. Without the variable (not under systemd) it does nothing.
enum SystemdNotifier {
  static func ready() { send("READY=1\nSTATUS=serving") }
  static func stopping() { send("STOPPING=1") }

  private static func send(_ message: String) {
    guard let value = getenv("NOTIFY_SOCKET").map({ String(cString: $0) }), !value.isEmpty
    else { return }
    let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return }
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    // An abstract socket is written with a leading '@', which stands for a NUL byte.
    var path = Array(value.utf8)
    if path.first == UInt8(ascii: "@") { path[0] = 0 }
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard path.count < capacity else { return }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (index, byte) in path.enumerated() { raw[index] = byte }
    }
    let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count)
    let bytes = Array(message.utf8)
    _ = withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
        bytes.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, 0, socketAddress, length) }
      }
    }
  }
}
