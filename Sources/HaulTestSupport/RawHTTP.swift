import Foundation
import HaulCore

/// A minimal blocking HTTP/1.1 client over a raw socket, to check the test fixtures
/// themselves without either transport under test: sends one request with
/// `Connection: close` and reads until the server closes.
public struct RawHTTP {
  public struct Response {
    public var status: Int
    public var headers: [HTTPField]
    public var body: [UInt8]
    public func value(for name: String) -> String? { headers.value(for: name) }
  }

  public struct Failure: Error, CustomStringConvertible {
    public var description: String
  }

  /// Sends `method target` with `headers` (and `body`) to `host:port`, returns the response.
  public static func request(
    _ method: String, _ target: String, host: String = "127.0.0.1", port: Int,
    headers: [String: String] = [:], body: [UInt8] = []
  ) throws -> Response {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw Failure(description: "socket failed") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr(host)
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else { throw Failure(description: "connect to \(host):\(port) failed") }
    var text = "\(method) \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n"
    for (name, value) in headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
    if !body.isEmpty { text += "Content-Length: \(body.count)\r\n" }
    text += "\r\n"
    let request = Array(text.utf8) + body
    var sent = 0
    while sent < request.count {
      let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
      guard n > 0 else { throw Failure(description: "send failed") }
      sent += n
    }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if n <= 0 { break }
      received += buffer[..<n]
    }
    return try parse(received, method: method)
  }

  private static func parse(_ bytes: [UInt8], method: String) throws -> Response {
    let separator: [UInt8] = [13, 10, 13, 10]
    guard let end = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) else {
      throw Failure(description: "no complete response head in \(bytes.count) bytes")
    }
    let head = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
    let statusParts = head[0].split(separator: " ")
    guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
      throw Failure(description: "bad status line \(head[0])")
    }
    let headers = head.dropFirst().compactMap { line -> HTTPField? in
      guard let colon = line.firstIndex(of: ":") else { return nil }
      return HTTPField(
        String(line[..<colon]),
        String(line[line.index(after: colon)...]).trimmingASCIIWhitespace())
    }
    return Response(status: status, headers: headers, body: Array(bytes[(end + 4)...]))
  }
}
