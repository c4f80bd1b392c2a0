import Foundation

/// Starts a server that must be told its port ahead (nginx, squid, tinyproxy cannot bind
/// port 0 and say which port they got): `start` runs on `first`, when given, or on a port
/// `NginxFixture.freePort()` finds, and again on fresh ones while it throws, three starts in
/// all, the last one's error thrown.
///
/// Another test's server may take a port between `freePort()` and this server's bind; this
/// one then cannot bind it and exits, and the next start tries another port. `start` must
/// tell its own server from one that took the port (its pid file, a line of its log) and
/// throw once its process exits.
func startOnFreePort<T>(first: Int? = nil, _ start: (Int) throws -> T) throws -> T {
  var port = try first ?? NginxFixture.freePort()
  for _ in 1..<3 {
    if let started = try? start(port) { return started }
    port = try NginxFixture.freePort()
  }
  return try start(port)
}
