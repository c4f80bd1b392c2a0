import Foundation
import HaulCore

/// One request as the `FaultServer` received it.
public struct RequestRecord: Sendable {
  /// The request method (`GET`, `HEAD`, `PUT`, ...).
  public var method: String
  /// The request target as sent: path and query.
  public var target: String
  /// The path part of `target`.
  public var path: String
  /// The query part of `target` (without `?`), if any.
  public var query: String?
  /// Header fields in the order received.
  public var headers: [HTTPField]
  /// When the request head was complete.
  public var start: Date
  /// Which connection carried it (1, 2, ... per server), to check connection reuse.
  public var connectionID: Int
  /// The response status sent, once known.
  public var status: Int?
  /// Orders the starts and ends of all requests of one server (for in-flight counts).
  public var startSequence: UInt64
  /// `nil` while the response is still being sent.
  public var endSequence: UInt64?
  /// When the response ended (sent whole, cut on purpose, or its connection closed by the
  /// peer); `nil` while it is still being sent. The server's own clock, on the connection's
  /// thread: a test timing the client measures here, not on its busy test pool.
  public var end: Date?
  /// When the response's last body byte so far was handed to the kernel (`nil` before the
  /// first): with `end`, how long the client waited in silence before it hung up.
  public var lastBodyByte: Date?

  /// The value of header `name` (ASCII case ignored).
  public func value(for name: String) -> String? { headers.value(for: name) }

  /// Seconds from the last body byte to the response's end: how long a stalled response
  /// waited for the client to give up. `nil` until it ended or when it sent no body byte.
  public var silenceBeforeEnd: Double? {
    guard let end, let lastBodyByte else { return nil }
    return end.timeIntervalSince(lastBodyByte)
  }

  /// The most of `records` being answered at once, counted at each request's start; with
  /// `sequence`, only at starts after that point of the server's log (requests that began
  /// earlier still count while they last).
  public static func maxInFlight(
    _ records: some Sequence<RequestRecord>, startingAfter sequence: UInt64? = nil
  ) -> Int {
    var changes: [(at: UInt64, delta: Int)] = []
    for record in records {
      changes.append((record.startSequence, 1))
      changes.append((record.endSequence ?? .max, -1))
    }
    var current = 0
    var most = 0
    for change in changes.sorted(by: { $0.at < $1.at }) {
      current += change.delta
      if change.delta > 0, sequence.map({ change.at > $0 }) ?? true {
        most = max(most, current)
      }
    }
    return most
  }
}

/// What a complete upload delivered to `/upload/<name>`: its size and digest, not its bytes.
public struct UploadRecord: Sendable, Hashable {
  public var method: String
  public var length: Int64
  public var sha256: String
  public var headers: [HTTPField]
}

extension FaultServer {
  /// Logs a request as started and returns its index in the log (-1 when not recorded) and
  /// its hit count for its target.
  func begin(_ request: FaultRequest, connectionID: Int) -> (index: Int, hit: Int) {
    shared.withLock { s in
      s.sequence += 1
      let hit = s.hits[request.target, default: 0]
      s.hits[request.target] = hit + 1
      s.inFlight += 1
      s.maxInFlight = max(s.maxInFlight, s.inFlight)
      guard recordsRequests else { return (-1, hit) }
      s.records.append(
        RequestRecord(
          method: request.method, target: request.target, path: request.path,
          query: request.query, headers: request.headers, start: Date(),
          connectionID: connectionID, status: nil, startSequence: s.sequence, endSequence: nil,
          end: nil, lastBodyByte: nil))
      return (s.records.count - 1, hit)
    }
  }

  /// Records the status a request was answered with (before its body is sent).
  func answered(_ index: Int, status: Int) {
    guard index >= 0 else { return }
    shared.withLock { $0.records[index].status = status }
  }

  /// Logs a request as finished (its response sent, or its connection dropped).
  func end(_ index: Int) {
    shared.withLock { s in
      s.sequence += 1
      s.inFlight -= 1
      guard index >= 0 else { return }
      s.records[index].endSequence = s.sequence
      s.records[index].end = Date()
    }
  }

  /// The requests whose path starts with `prefix`, once at least `count` of them have ended
  /// (waiting up to `timeout` seconds: the server notices a client's hang-up within 20 ms,
  /// maybe after the client already returned). The wait ends at the hang-up; the bound only
  /// caps how long a client that never hangs up holds the test, so a loaded machine's
  /// scheduling delays cannot reach it.
  public func endedRequests(
    pathPrefix prefix: String, atLeast count: Int = 1, timeout: Double = 60
  ) -> [RequestRecord] {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      let records = requests(pathPrefix: prefix)
      if records.filter({ $0.end != nil }).count >= count || Date() > deadline { return records }
      usleep(5_000)
    }
  }

  /// Counts `count` body bytes handed to the kernel for the request logged at `index`, to
  /// `path`, and notes when they went.
  func countBody(_ path: String, _ count: Int64, index: Int) {
    shared.withLock { s in
      s.bodyBytes[path, default: 0] += count
      if index >= 0 { s.records[index].lastBodyByte = Date() }
    }
  }

  /// How many `/data` body bytes this server has sent for `path` (over every request and
  /// connection): what a client can at most have received, for crash tests.
  public func bodyBytesSent(path: String) -> Int64 {
    shared.withLock { $0.bodyBytes[path] ?? 0 }
  }

  func storeUpload(_ record: UploadRecord, name: String) {
    shared.withLock { $0.uploads[name] = record }
  }
}
