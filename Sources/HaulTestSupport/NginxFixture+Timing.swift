import Foundation

extension NginxFixture {
  /// nginx's timing log: one line per request with its protocol, connection and timing.
  public var timingLogPath: String { directory.file("timing.log") }

  /// The timing log's entries. Like `accessLog(atLeast:timeout:)`, waits (up to `timeout`
  /// seconds) until there are at least `count`, since nginx logs a request after answering.
  public func timingLog(atLeast count: Int = 0, timeout: Double = 5) -> [TimedRequest] {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      let text = (try? String(contentsOfFile: timingLogPath, encoding: .utf8)) ?? ""
      let entries = text.split(separator: "\n").compactMap(TimedRequest.init)
      if entries.count >= count || Date() >= deadline { return entries }
      usleep(10_000)
    }
  }
}

/// One line of the `NginxFixture` timing log: which protocol and connection served a
/// request, and when it started and ended (nginx's clock, millisecond resolution).
public struct TimedRequest: Sendable, Hashable {
  /// `HTTP/1.1` or `HTTP/2.0`.
  public var version: String
  /// nginx's connection serial number: requests with the same one shared a connection.
  public var connection: Int
  /// Seconds since the epoch.
  public var start: Double
  public var end: Double
  public var status: Int
  public var uri: String

  init?(_ line: Substring) {
    let parts = line.split(separator: " ")
    guard parts.count == 6, let connection = Int(parts[1]), let end = Double(parts[2]),
      let duration = Double(parts[3]), let status = Int(parts[4])
    else { return nil }
    version = String(parts[0])
    self.connection = connection
    self.end = end
    start = end - duration
    self.status = status
    uri = String(parts[5])
  }

  /// The most of `requests` that were being answered at the same moment.
  public static func maxOverlap(_ requests: [TimedRequest]) -> Int {
    var changes: [(at: Double, delta: Int)] = []
    for request in requests {
      changes.append((request.start, 1))
      changes.append((request.end, -1))
    }
    // At equal times an end goes first: back-to-back requests do not overlap.
    changes.sort { $0.at != $1.at ? $0.at < $1.at : $0.delta < $1.delta }
    var current = 0
    var most = 0
    for (_, delta) in changes {
      current += delta
      most = max(most, current)
    }
    return most
  }
}
