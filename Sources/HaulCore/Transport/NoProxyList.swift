import Foundation

/// The hosts that bypass every proxy: `no_proxy`/`NO_PROXY`, read as libcurl 7.88 reads it.
///
/// A comma-separated list: `*` alone matches every host; a name matches itself and every
/// name under it (`example.com` and `.example.com` both match `example.com` and
/// `a.example.com`, not `badexample.com`), case-insensitively, a trailing dot ignored; an IP
/// literal matches that address, and an IPv4 `address/bits` the addresses in that range.
/// Names are never resolved: `localhost` does not match `127.0.0.1`.
public struct NoProxyList: Sendable, Hashable {
  private var matchesEverything = false
  private var names: [String] = []
  private var addresses: [String] = []
  private var ranges: [IPv4Range] = []

  /// The empty list: nothing bypasses the proxy.
  public static let empty = NoProxyList("")

  public init(_ text: String) {
    let entries = text.split(separator: ",").map { String($0).trimmingASCIIWhitespace() }
      .filter { !$0.isEmpty }
    if entries == ["*"] { matchesEverything = true }
    for entry in entries {
      var entry = entry.lowercased()
      if entry.hasPrefix("[") && entry.hasSuffix("]") {
        entry = String(entry.dropFirst().dropLast())
      }
      if let range = IPv4Range(entry) {
        ranges.append(range)
      } else if entry.contains(":") {
        addresses.append(entry)
      } else {
        while entry.hasPrefix(".") { entry.removeFirst() }
        while entry.hasSuffix(".") { entry.removeLast() }
        if !entry.isEmpty { names.append(entry) }
      }
    }
  }

  /// Whether a request to `host` (a URL's host, brackets of an IPv6 literal allowed) goes
  /// direct.
  public func bypasses(_ host: String) -> Bool {
    if matchesEverything { return true }
    var host = host.lowercased()
    if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    if let address = IPv4Range.address(host) {
      return ranges.contains { $0.contains(address) }
    }
    if host.contains(":") { return addresses.contains(host) }
    while host.hasSuffix(".") { host.removeLast() }
    return names.contains { host == $0 || host.hasSuffix("." + $0) }
  }
}

/// An IPv4 address range `a.b.c.d` or `a.b.c.d/bits`, for `NoProxyList`.
private struct IPv4Range: Sendable, Hashable {
  let network: UInt32
  let mask: UInt32

  init?(_ text: String) {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count <= 2, let address = Self.address(String(parts[0])) else { return nil }
    var bits = 32
    if parts.count == 2 {
      guard let value = Int(parts[1]), (0...32).contains(value) else { return nil }
      bits = value
    }
    mask = bits == 0 ? 0 : UInt32.max << UInt32(32 - bits)
    network = address & mask
  }

  func contains(_ address: UInt32) -> Bool { address & mask == network }

  /// The dotted-quad `text` as a number, or `nil` if it is not one.
  static func address(_ text: String) -> UInt32? {
    let octets = text.split(separator: ".", omittingEmptySubsequences: false)
    guard octets.count == 4 else { return nil }
    var value: UInt32 = 0
    for octet in octets {
      guard !octet.isEmpty, octet.count <= 3, octet.allSatisfy(\.isASCII),
        let number = UInt32(octet), number <= 255
      else { return nil }
      value = value << 8 | number
    }
    return value
  }
}
