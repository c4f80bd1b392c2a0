/// Which waiting transfers may start: at most `limit` in flight overall and at most the
/// host's current limit to one host, first come first served among those whose host has
/// room.
///
/// It also carries SPEC.md's "Polite per host" rule: a 429 or 503 halves that host's limit
/// (never below 1) and holds new requests to it until its `Retry-After` has passed; the limit
/// grows back by one after each 10 s without such an answer, up to `perHost`. And a host
/// that is down (see `Scheduler`'s connectivity wait) gets nothing new until it is back.
///
/// A value type with no clock and no I/O: time comes in as `now` (seconds on any monotonic
/// scale). The scheduler actor owns one and carries out what it returns. See
/// `AdmissionStateTests`.
public struct AdmissionState: Sendable {
  /// The most transfers in flight overall.
  public var limit: Int
  /// The ceiling of every host's limit.
  public var perHost: Int
  /// Seconds without a 429/503 after which a reduced host limit grows by one.
  public var regrowInterval: Double = 10
  public private(set) var running = 0
  public private(set) var runningPerHost: [String: Int] = [:]
  private var waiting: [(id: Int, host: String)] = []
  /// How many of `waiting` are for each host, so a request need not scan the queue.
  private var waitingPerHost: [String: Int] = [:]
  private var reduced: [String: (limit: Int, since: Double)] = [:]
  private var blockedUntil: [String: Double] = [:]
  private var down: Set<String> = []

  public init(limit: Int, perHost: Int) {
    self.limit = max(1, limit)
    self.perHost = max(1, perHost)
  }

  /// Transfers waiting for a slot.
  public var waitingCount: Int { waiting.count }

  /// The current limit for `host`.
  public func limit(for host: String) -> Int { reduced[host]?.limit ?? perHost }

  /// Asks for a slot for transfer `id` to `host`: `true` when it may start now; otherwise it
  /// waits and a later `release`, `admitWaiting` or `markUp` returns it.
  public mutating func request(id: Int, host: String, now: Double) -> Bool {
    regrow(now: now)
    if waitingPerHost[host] == nil, hasRoom(for: host, now: now) {
      admit(host)
      return true
    }
    waiting.append((id, host))
    waitingPerHost[host, default: 0] += 1
    return false
  }

  /// Frees the slot of a transfer to `host` that ended; returns the waiting transfers that
  /// may start now, in the order they asked.
  public mutating func release(host: String, now: Double) -> [Int] {
    running -= 1
    runningPerHost[host, default: 1] -= 1
    if runningPerHost[host] == 0 { runningPerHost[host] = nil }
    return admitWaiting(now: now)
  }

  /// Admits whatever waiting transfers now have room (after time passed).
  ///
  /// A host found without room is not asked again in the same pass (nothing admitted later
  /// in the pass can give it room), so a queue of one busy host costs one look, not one per
  /// waiting transfer.
  public mutating func admitWaiting(now: Double) -> [Int] {
    regrow(now: now)
    guard !waiting.isEmpty, running < limit else { return [] }
    var started: [Int] = []
    var full: Set<String> = []
    var index = 0
    while index < waiting.count && running < limit {
      let candidate = waiting[index]
      if !full.contains(candidate.host), hasRoom(for: candidate.host, now: now) {
        admit(candidate.host)
        started.append(candidate.id)
        removeWaiting(at: index)
      } else {
        full.insert(candidate.host)
        index += 1
        if full.count == waitingPerHost.count { break }
      }
    }
    return started
  }

  private mutating func removeWaiting(at index: Int) {
    let host = waiting.remove(at: index).host
    waitingPerHost[host, default: 1] -= 1
    if waitingPerHost[host] == 0 { waitingPerHost[host] = nil }
  }

  /// Takes transfer `id` out of the queue. Returns whether it was waiting.
  public mutating func withdraw(id: Int) -> Bool {
    guard let index = waiting.firstIndex(where: { $0.id == id }) else { return false }
    removeWaiting(at: index)
    return true
  }

  /// Removes every waiting transfer and returns them (the run was cancelled).
  public mutating func withdrawAll() -> [Int] {
    defer {
      waiting.removeAll()
      waitingPerHost.removeAll()
    }
    return waiting.map(\.id)
  }

  /// `host` answered 429 or 503: halve its limit and hold it for `retryAfter` seconds.
  public mutating func throttled(host: String, retryAfter: Double?, now: Double) {
    reduced[host] = (max(1, limit(for: host) / 2), now)
    if let retryAfter, retryAfter > 0 {
      blockedUntil[host] = max(blockedUntil[host] ?? now, now + retryAfter)
    }
  }

  /// `host` stopped answering: start nothing new there until `markUp`.
  public mutating func markDown(host: String) { down.insert(host) }

  /// Whether `host` is down.
  public func isDown(_ host: String) -> Bool { down.contains(host) }

  /// `host` answers again; returns the waiting transfers that may start now.
  public mutating func markUp(host: String, now: Double) -> [Int] {
    down.remove(host)
    return admitWaiting(now: now)
  }

  /// When something may change without a transfer ending (a hold expires, a limit grows),
  /// if anything waits for it.
  ///
  /// The scheduler asks after every finished attempt while transfers wait, so the common
  /// case (no host held or reduced) returns at once instead of hashing every waiting host.
  public func nextChange(now: Double) -> Double? {
    guard !blockedUntil.isEmpty || !reduced.isEmpty else { return nil }
    let hosts = Set(waiting.map(\.host))
    var earliest: Double?
    for host in hosts {
      if let until = blockedUntil[host], until > now { earliest = min(earliest ?? until, until) }
      if let step = reduced[host] {
        let at = step.since + regrowInterval
        earliest = min(earliest ?? at, at)
      }
    }
    return earliest
  }

  private mutating func regrow(now: Double) {
    for (host, step) in reduced where now - step.since >= regrowInterval {
      let steps = Int((now - step.since) / regrowInterval)
      let grown = step.limit + steps
      reduced[host] = grown >= perHost ? nil : (grown, step.since + Double(steps) * regrowInterval)
    }
    for (host, until) in blockedUntil where until <= now { blockedUntil[host] = nil }
  }

  private func hasRoom(for host: String, now: Double) -> Bool {
    running < limit && !down.contains(host) && (blockedUntil[host].map { $0 <= now } ?? true)
      && runningPerHost[host, default: 0] < limit(for: host)
  }

  private mutating func admit(_ host: String) {
    running += 1
    runningPerHost[host, default: 0] += 1
  }
}
