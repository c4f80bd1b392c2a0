/// Which waiting transfers may start: at most `limit` in flight overall and at most
/// `perHost` to one host, first come first served among those whose host has room.
///
/// A value type with no clocks and no I/O; the scheduler actor owns one and carries out
/// what it returns. See `AdmissionStateTests`.
public struct AdmissionState: Sendable {
  public var limit: Int
  public var perHost: Int
  public private(set) var running = 0
  public private(set) var runningPerHost: [String: Int] = [:]
  private var waiting: [(id: Int, host: String)] = []

  public init(limit: Int, perHost: Int) {
    self.limit = max(1, limit)
    self.perHost = max(1, perHost)
  }

  /// Transfers waiting for a slot.
  public var waitingCount: Int { waiting.count }

  /// Asks for a slot for transfer `id` to `host`: `true` when it may start now; otherwise it
  /// waits and a later `release` returns it.
  public mutating func request(id: Int, host: String) -> Bool {
    if waiting.isEmpty || !waiting.contains(where: { $0.host == host }), hasRoom(for: host) {
      admit(host)
      return true
    }
    waiting.append((id, host))
    return false
  }

  /// Frees the slot of a transfer to `host` that ended; returns the waiting transfers that
  /// may start now, in the order they asked.
  public mutating func release(host: String) -> [Int] {
    running -= 1
    runningPerHost[host, default: 1] -= 1
    if runningPerHost[host] == 0 { runningPerHost[host] = nil }
    var started: [Int] = []
    var index = 0
    while index < waiting.count && running < limit {
      let candidate = waiting[index]
      if hasRoom(for: candidate.host) {
        admit(candidate.host)
        started.append(candidate.id)
        waiting.remove(at: index)
      } else {
        index += 1
      }
    }
    return started
  }

  /// Takes transfer `id` out of the queue (it was cancelled while waiting). Returns whether
  /// it was waiting.
  public mutating func withdraw(id: Int) -> Bool {
    guard let index = waiting.firstIndex(where: { $0.id == id }) else { return false }
    waiting.remove(at: index)
    return true
  }

  private func hasRoom(for host: String) -> Bool {
    running < limit && runningPerHost[host, default: 0] < perHost
  }

  private mutating func admit(_ host: String) {
    running += 1
    runningPerHost[host, default: 0] += 1
  }
}
