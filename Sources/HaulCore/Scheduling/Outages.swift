/// The hosts that are down in a run and the attempts waiting for each, as a value: the
/// first attempt to find a host down starts its probe, the others wait with it, and the
/// probe's end releases them all. The `Scheduler` owns one and carries out what it says.
/// See `OutagesTests`.
package struct Outages<Waiter> {
  private var waiting: [String: [Waiter]] = [:]

  package init() {}

  /// `waiter` waits for `host` to come back. Returns `true` when this makes the host down,
  /// and so a probe must start.
  package mutating func wait(_ waiter: Waiter, for host: String) -> Bool {
    let isNew = waiting[host] == nil
    waiting[host, default: []].append(waiter)
    return isNew
  }

  /// The probe of `host` ended: its waiters, to resume.
  package mutating func end(_ host: String) -> [Waiter] {
    waiting.removeValue(forKey: host) ?? []
  }

  /// The run is cancelled: every waiter, to resume.
  package mutating func endAll() -> [Waiter] {
    defer { waiting.removeAll() }
    return Array(waiting.values.joined())
  }
}

/// When to probe a host that is down again, and whether its wait excuses the attempts that
/// failed meanwhile: probes back off from 0.25 s, doubling up to 30 s, until the host
/// accepts a connection or `limit` seconds have passed (`SchedulerOptions.outageLimit`).
/// Only a host that came back after a wait excuses them; past the limit (or on cancel) they
/// count, so retries are spent and the run ends.
package struct OutageProbe: Sendable, Hashable {
  package enum Step: Sendable, Hashable {
    /// Probe again after this many seconds.
    case wait(Double)
    /// The outage is over; `excused` tells whether the failed attempts are forgiven.
    case ended(excused: Bool)
  }

  private let began: Double
  private let limit: Double
  private var delay = 0.25
  private var waited = false

  package init(began: Double, limit: Double) {
    self.began = began
    self.limit = limit
  }

  /// A probe answered `reachable` at `now`: what to do next.
  package mutating func next(reachable: Bool, now: Double, cancelled: Bool) -> Step {
    if cancelled { return .ended(excused: false) }
    if reachable { return .ended(excused: waited) }
    if now - began > limit { return .ended(excused: false) }
    waited = true
    defer { delay = min(delay * 2, 30) }
    return .wait(delay)
  }
}
