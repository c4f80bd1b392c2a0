/// Which waiting transfers may start: at most `limit` in flight overall and at most the
/// host's current limit to one host, first come first served among those whose host has
/// room.
///
/// It also carries the politeness rule (docs/behaviour.md): a 429 or 503 halves a host's limit
/// (never below 1) and holds new requests to it until its `Retry-After` has passed; the limit
/// grows back by one after each 10 s without such an answer, up to `perHost`. And a host
/// that is down (see `Scheduler`'s connectivity wait) gets nothing new until it is back.
///
/// A host that multiplexes (HTTP/2: each transfer a stream of a shared connection) has a
/// ceiling of `perHost` connections' worth of streams instead: there `perHost` bounds the
/// connections, which is what costs a server, and the transport opens a further connection
/// only when one carries `streamsPerConnection` streams.
///
/// Hosts are whatever names them to the caller (`RunState` numbers them, so a slot costs
/// no string hashing). A value type with no clock and no I/O: time comes in as `now`
/// (seconds on any monotonic scale). `RunState` owns one and carries out what it returns.
/// See `AdmissionStateTests`.
package struct AdmissionState<Host: Hashable & Sendable>: Sendable {
  /// The most transfers in flight overall.
  package var limit: Int
  /// The ceiling of every host's limit; for a host that multiplexes, of its connections.
  package var perHost: Int
  /// The streams one connection carries to a host that multiplexes: libcurl's default
  /// `CURLMOPT_MAX_CONCURRENT_STREAMS` (servers commonly allow 100 to 128).
  package var streamsPerConnection = 100
  /// Seconds without a 429/503 after which a reduced host limit grows by one.
  package var regrowInterval: Double = 10
  package private(set) var running = 0
  package private(set) var runningPerHost: [Host: Int] = [:]
  /// Transfers waiting for a slot.
  package private(set) var waitingCount = 0
  /// The waiting transfers of each host, in the order they asked.
  private var queues: [Host: HostQueue] = [:]
  /// Hosts with waiting transfers that may have room, keyed by the arrival number of their
  /// first waiting transfer: the smallest is the one that asked first. A host found without
  /// room leaves the heap and comes back when it may have room again (a slot to it freed,
  /// time passed, it came back up), so a queue behind a full host costs nothing per release
  /// however long it is: a slow host's thousand waiting transfers do not slow the others.
  private var candidates = MinHeap<Candidate>()
  /// Arrival numbers, for first come first served across hosts.
  private var arrivals = 0
  private var reduced: [Host: (limit: Int, since: Double)] = [:]
  private var blockedUntil: [Host: Double] = [:]
  private var down: Set<Host> = []
  private var multiplexed: Set<Host> = []
  /// Hosts whose ceiling is not `perHost` (`setCeiling`).
  private var ceilings: [Host: Int] = [:]

  private struct Candidate: Comparable, Sendable {
    var arrival: Int
    var host: Host
    static func < (a: Candidate, b: Candidate) -> Bool { a.arrival < b.arrival }
  }

  private struct HostQueue: Sendable {
    private var items: [(arrival: Int, id: Int)] = []
    private var head = 0
    /// Whether the host is in `candidates` with the arrival of its current first item.
    var listed = false

    var isEmpty: Bool { head == items.count }
    var first: (arrival: Int, id: Int)? { isEmpty ? nil : items[head] }

    mutating func append(_ item: (arrival: Int, id: Int)) { items.append(item) }

    mutating func removeFirst() {
      head += 1
      if head == items.count {
        items.removeAll(keepingCapacity: true)
        head = 0
      } else if head >= 1024, head * 2 >= items.count {
        items.removeFirst(head)
        head = 0
      }
    }

    var ids: [Int] { items[head...].map(\.id) }
  }

  package init(limit: Int, perHost: Int) {
    self.limit = max(1, limit)
    self.perHost = max(1, perHost)
  }

  /// The current limit for `host`.
  package func limit(for host: Host) -> Int { reduced[host]?.limit ?? ceiling(for: host) }

  /// The most transfers to `host` at once: `perHost` (or its own, `setCeiling`), or as
  /// many streams for a host that multiplexes.
  package func ceiling(for host: Host) -> Int {
    let connections = ceilings[host] ?? perHost
    return multiplexed.contains(host) ? connections * streamsPerConnection : connections
  }

  /// Gives `host` a ceiling of its own in place of `perHost` (`HostLimits`), before its
  /// first transfer asks for a slot.
  package mutating func setCeiling(_ ceiling: Int, for host: Host) {
    ceilings[host] = max(1, ceiling)
  }

  /// `host` multiplexes: its ceiling counts streams from now on. Returns whether that is
  /// news (then `admitWaiting` admits what its new room allows).
  package mutating func markMultiplexed(host: Host) -> Bool {
    multiplexed.insert(host).inserted
  }

  /// Asks for a slot for transfer `id` to `host`: `true` when it may start now; otherwise it
  /// waits and a later `release`, `admitWaiting` or `markUp` returns it.
  package mutating func request(id: Int, host: Host, now: Double) -> Bool {
    if !reduced.isEmpty || !blockedUntil.isEmpty, regrow(now: now) { relistAll() }
    if queues[host] == nil, hasRoom(for: host, now: now) {
      admit(host)
      return true
    }
    arrivals += 1
    queues[host, default: HostQueue()].append((arrivals, id))
    waitingCount += 1
    list(host)
    return false
  }

  /// Frees the slot of a transfer to `host` that ended; returns the waiting transfers that
  /// may start now, in the order they asked.
  package mutating func release(host: Host, now: Double) -> [Int] {
    running -= 1
    runningPerHost[host, default: 1] -= 1
    if runningPerHost[host] == 0 { runningPerHost[host] = nil }
    guard waitingCount > 0 else { return [] }
    list(host)
    return admitListed(now: now)
  }

  /// Admits whatever waiting transfers now have room (after time passed).
  package mutating func admitWaiting(now: Double) -> [Int] {
    guard waitingCount > 0 else {
      if !reduced.isEmpty || !blockedUntil.isEmpty { _ = regrow(now: now) }
      return []
    }
    relistAll()
    return admitListed(now: now)
  }

  /// Admits from the listed hosts, oldest first, while there is room overall.
  private mutating func admitListed(now: Double) -> [Int] {
    if !reduced.isEmpty || !blockedUntil.isEmpty, regrow(now: now) { relistAll() }
    var started: [Int] = []
    while running < limit, let candidate = candidates.first {
      candidates.pop()
      guard let next = queues[candidate.host]?.first else { continue }
      guard next.arrival == candidate.arrival else {
        // A stale listing: list the host again with its current first.
        candidates.push(Candidate(arrival: next.arrival, host: candidate.host))
        continue
      }
      guard hasRoom(for: candidate.host, now: now) else {
        queues[candidate.host]?.listed = false
        continue
      }
      admit(candidate.host)
      started.append(next.id)
      waitingCount -= 1
      // Mutated in place, found once: a copy of the queue would copy every waiting
      // transfer's item.
      var following: (arrival: Int, id: Int)?
      if let index = queues.index(forKey: candidate.host) {
        queues.values[index].removeFirst()
        following = queues.values[index].first
        if following == nil { queues.remove(at: index) }
      }
      if let following {
        candidates.push(Candidate(arrival: following.arrival, host: candidate.host))
      }
    }
    return started
  }

  /// Puts `host` among the candidates if it has waiting transfers and is not listed yet.
  private mutating func list(_ host: Host) {
    guard let queue = queues[host], !queue.listed, let first = queue.first else { return }
    queues[host]?.listed = true
    candidates.push(Candidate(arrival: first.arrival, host: host))
  }

  private mutating func relistAll() {
    for host in queues.keys { list(host) }
  }

  /// Removes every waiting transfer and returns them (the run was cancelled).
  package mutating func withdrawAll() -> [Int] {
    defer {
      queues.removeAll()
      candidates.removeAll()
      waitingCount = 0
    }
    return queues.values.flatMap(\.ids)
  }

  /// `host` answered 429 or 503: halve its limit and hold it for `retryAfter` seconds.
  package mutating func throttled(host: Host, retryAfter: Double?, now: Double) {
    reduced[host] = (max(1, limit(for: host) / 2), now)
    if let retryAfter, retryAfter > 0 {
      blockedUntil[host] = max(blockedUntil[host] ?? now, now + retryAfter)
    }
  }

  /// `host` stopped answering: start nothing new there until `markUp`.
  package mutating func markDown(host: Host) { down.insert(host) }

  /// `host` answers again; returns the waiting transfers that may start now.
  package mutating func markUp(host: Host, now: Double) -> [Int] {
    down.remove(host)
    list(host)
    return admitListed(now: now)
  }

  /// When something may change without a transfer ending (a hold expires, a limit grows),
  /// if anything waits for it.
  ///
  /// The scheduler asks after every finished attempt while transfers wait, so the common
  /// case (no host held or reduced) returns at once instead of hashing every waiting host.
  package func nextChange(now: Double) -> Double? {
    guard !blockedUntil.isEmpty || !reduced.isEmpty else { return nil }
    var earliest: Double?
    for host in queues.keys {
      if let until = blockedUntil[host], until > now { earliest = min(earliest ?? until, until) }
      if let step = reduced[host] {
        let at = step.since + regrowInterval
        earliest = min(earliest ?? at, at)
      }
    }
    return earliest
  }

  /// Grows reduced limits and ends expired holds; returns whether anything changed.
  private mutating func regrow(now: Double) -> Bool {
    var changed = false
    for (host, step) in reduced where now - step.since >= regrowInterval {
      let steps = Int((now - step.since) / regrowInterval)
      let grown = step.limit + steps
      reduced[host] =
        grown >= ceiling(for: host) ? nil : (grown, step.since + Double(steps) * regrowInterval)
      changed = true
    }
    for (host, until) in blockedUntil where until <= now {
      blockedUntil[host] = nil
      changed = true
    }
    return changed
  }

  private func hasRoom(for host: Host, now: Double) -> Bool {
    running < limit && !down.contains(host) && (blockedUntil[host].map { $0 <= now } ?? true)
      && runningPerHost[host, default: 0] < limit(for: host)
  }

  private mutating func admit(_ host: Host) {
    running += 1
    runningPerHost[host, default: 0] += 1
  }
}
