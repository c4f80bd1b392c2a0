/// The decisions of one run, as a value: who holds a slot and who waits (`AdmissionState`),
/// how a host's answer bears on its limit, when the feeder reads on, when the run has
/// drained, what cancelling releases, and, under `-j auto`, how many transfers are in
/// flight (`ConcurrencyController`).
///
/// Every method returns what the caller must do (start jobs, resume waiters, the feeder or
/// the scheduler, arm a timer, cancel the run's work); nothing here sleeps, locks or
/// resumes. Timers are such actions too: the machine arms one (`RunTimer`) when a hold
/// ends or a limit grows later while something waits, and disarms it by forgetting it.
/// `RunState` owns one behind its lock and carries the actions out after leaving it. `Job`,
/// `Waiter` and `Wake` are whatever the owner resumes (an entry's job, a task's
/// continuation); tests use plain values. See `RunStateMachineTests`.
package struct RunStateMachine<Job, Waiter, Wake> {
  /// Who waits for a ticket's slot.
  private enum Holder {
    /// An entry not started yet: admitted, it starts its first attempt.
    case job(Job)
    /// A task waiting to make a further attempt.
    case waiter(Waiter)
  }

  /// Why the feeder waits, and so what wakes it.
  private enum FeederPause {
    /// `lookahead` entries are alive: it reads on once half of them have ended.
    case lookaheadFull
    /// `readyTarget` entries wait and every slot is taken, so an entry read now could only
    /// wait too: it reads on once half of them are left, or a slot is free that the
    /// waiting entries cannot take (their hosts are full or held).
    case enoughReady
  }

  /// What the owner does after a change of the slots.
  package struct Admitted {
    /// Entries that hold their first slot now: start them.
    package var jobs: [Job] = []
    /// Tasks whose further attempt holds its slot now: resume them.
    package var waiters: [Waiter] = []
    /// The feeder, to resume: what it waited for has come.
    package var feeder: Wake?
    /// A timer to arm: a hold ends or a limit grows then, and something waits for it.
    package var arm: RunTimer?
  }

  /// What became of an entry handed to the run.
  package enum Submission: Equatable {
    /// It holds its slot: start it now.
    case started
    /// It waits; a later change of the slots returns it. Arm `arm`, if any.
    case waiting(arm: RunTimer?)
    /// The run is cancelled: record it as such.
    case cancelled
  }

  /// What cancelling the run releases; the run's work (its tasks and timers) is to be
  /// cancelled with it.
  package struct Cancellation {
    /// Entries that never started, to record as cancelled.
    package var jobs: [Job] = []
    /// Tasks waiting for a slot, to resume with `false`.
    package var waiters: [Waiter] = []
    /// The feeder, to resume so that it sees the run is over.
    package var feeder: Wake?
    /// The timer that was armed, disarmed now.
    package var disarmed: RunTimer?
  }

  private var admission: AdmissionState<Int>
  private var holders: [Int: Holder] = [:]
  private var nextTicket = 0
  /// Hosts that answered in this run (a later refusal is an outage, not the entry's).
  private var contacted: Set<Int> = []
  /// The timer armed to look at held or reduced hosts next.
  package private(set) var timer: RunTimer?
  /// Timers armed so far, to number the next.
  private var timersArmed = 0
  /// The run ended: no timer is armed any more.
  private var closed = false
  package private(set) var cancelled = false
  package private(set) var tally = RunTally()
  /// Entries handed to the run that have not ended.
  package private(set) var live = 0
  private var feeder: (wake: Wake, pause: FeederPause)?
  /// The scheduler, waiting for the last entry to end once feeding is done.
  private var drained: Wake?
  private var feedingDone = false
  /// Chooses the global limit under `-j auto`; `nil` keeps `-j N` fixed.
  package private(set) var controller: ConcurrencyController?

  /// The most entries alive at once (running, waiting for a slot or for a retry): how far
  /// ahead of the transfers the manifest is read, so that one slow host's waiting entries
  /// leave room for other hosts' (bounded, so memory stays flat in the manifest's length).
  package let lookahead: Int
  /// The longest hold a `Retry-After` puts on a host, in seconds.
  private let retryAfterCap: Double

  /// - Parameters:
  ///   - concurrency: the global limit, or under `controller` its ceiling.
  ///   - perHost: the ceiling of each host's limit (for a host that multiplexes, of its
  ///     connections: see `AdmissionState.streamsPerConnection`).
  package init(
    concurrency: Int, perHost: Int, retryAfterCap: Double,
    controller: ConcurrencyController? = nil
  ) {
    admission = AdmissionState(limit: controller?.limit ?? concurrency, perHost: perHost)
    lookahead = max(4096, concurrency * 16)
    self.retryAfterCap = retryAfterCap
    self.controller = controller
  }

  /// Transfers allowed in flight now.
  package var limit: Int { admission.limit }

  /// Gives `host` a ceiling of its own (`AdmissionState.setCeiling`).
  package mutating func setCeiling(_ ceiling: Int, for host: Int) {
    admission.setCeiling(ceiling, for: host)
  }

  /// The most transfers `host` takes at once (`AdmissionState.ceiling`).
  package func ceiling(for host: Int) -> Int { admission.ceiling(for: host) }

  /// Transfers in flight now.
  package var running: Int { admission.running }

  /// How many entries may wait for a slot while every slot is taken before the feeder
  /// pauses. Why: reading further then only queues entries, whose memory costs page faults
  /// and helps no transfer; the lookahead is read only where it can help, when a slot is
  /// free that the waiting entries' hosts cannot take.
  package var readyTarget: Int { max(64, admission.limit * 16) }

  // MARK: Slots

  /// Hands `job` (to `host`) to the run, which counts it alive until `ended`.
  package mutating func submit(_ job: Job, host: Int, now: Double) -> Submission {
    live += 1
    guard !cancelled else { return .cancelled }
    nextTicket += 1
    if admission.request(id: nextTicket, host: host, now: now) { return .started }
    holders[nextTicket] = .job(job)
    return .waiting(arm: wake(now: now))
  }

  /// Asks a slot to `host` for a further attempt: `true` when it holds it now, `false`
  /// when the run is cancelled, `nil` when it waits (and `arm`, if any, is to be armed).
  package mutating func acquire(_ waiter: Waiter, host: Int, now: Double) -> (
    admitted: Bool?, arm: RunTimer?
  ) {
    guard !cancelled else { return (false, nil) }
    nextTicket += 1
    if admission.request(id: nextTicket, host: host, now: now) { return (true, nil) }
    holders[nextTicket] = .waiter(waiter)
    return (nil, wake(now: now))
  }

  /// Frees a slot to `host`, first noting how it answered: `status` (429 and 503 throttle
  /// the host for `retryAfter` seconds, capped, and count as pushback for `-j auto`), and
  /// whether it answered at all.
  package mutating func release(
    host: Int, status: Int?, retryAfter: Double?, answered: Bool, now: Double
  ) -> Admitted {
    if answered || status != nil { contacted.insert(host) }
    let pushback = status == 429 || status == 503
    if pushback {
      admission.throttled(
        host: host, retryAfter: retryAfter.map { min($0, retryAfterCap) }, now: now)
    }
    controller?.attemptEnded(overload: pushback)
    return collect(admission.release(host: host, now: now), now: now)
  }

  /// An exchange answered with `timing`: counted for the summary, and a sample of the
  /// servers' answer time for `-j auto` (`bytes` moved so far). A limit that grew admits
  /// what waits.
  package mutating func answered(_ timing: TransferTiming, bytes: Int64, now: Double)
    -> Admitted
  {
    tally.note(timing)
    guard var controller = self.controller else { return Admitted() }
    let changed = controller.answered(
      answer: timing.answer, firstByte: timing.firstByte, started: now - timing.total,
      now: now, bytes: bytes, bound: isBound)
    self.controller = controller
    guard let changed else { return Admitted() }
    admission.limit = changed
    return collect(admission.admitWaiting(now: now), now: now)
  }

  /// `host` carries several exchanges per connection (HTTP/2): its limit counts streams,
  /// and under `-j auto` the global limit may jump to all of them, up to its ceiling
  /// (`ConcurrencyController.multiplexing`); `handshake`: the seconds its connection's TLS
  /// handshake took, when the connection told; `bytes` moved so far.
  package mutating func multiplexes(host: Int, handshake: Double? = nil, bytes: Int64, now: Double)
    -> Admitted
  {
    guard admission.markMultiplexed(host: host) else { return Admitted() }
    if var controller = self.controller {
      let streams = admission.limit(for: host)
      if let changed = controller.multiplexing(
        streams: streams, handshake: handshake, now: now, bytes: bytes)
      {
        admission.limit = changed
      }
      self.controller = controller
    }
    return collect(admission.admitWaiting(now: now), now: now)
  }

  /// Timer `number` fired: admits what time made room for (a hold ended, a limit grew).
  /// A timer disarmed since changes nothing.
  package mutating func timerFired(_ number: Int, now: Double) -> Admitted {
    guard timer?.number == number else { return Admitted() }
    timer = nil
    return collect(admission.admitWaiting(now: now), now: now)
  }

  /// Whether `host` answered earlier in this run.
  package func wasContacted(_ host: Int) -> Bool { contacted.contains(host) }

  /// `host` stopped answering: nothing new starts there until `markUp`.
  package mutating func markDown(host: Int) { admission.markDown(host: host) }

  /// `host` answers again.
  package mutating func markUp(host: Int, now: Double) -> Admitted {
    collect(admission.markUp(host: host, now: now), now: now)
  }

  /// Lets the controller look at the run (`-j auto`): `bytes` moved so far. A limit that
  /// grew admits what waits.
  package mutating func tune(bytes: Int64, now: Double) -> Admitted {
    guard var controller = self.controller else { return Admitted() }
    let changed = controller.tick(now: now, bytes: bytes, bound: isBound)
    self.controller = controller
    guard let changed else { return Admitted() }
    admission.limit = changed
    return collect(admission.admitWaiting(now: now), now: now)
  }

  /// Whether the global limit bounds the run: a transfer waits with every slot taken.
  private var isBound: Bool { admission.waitingCount > 0 && admission.running >= admission.limit }

  /// Turns admitted tickets into what the owner starts or resumes.
  private mutating func collect(_ tickets: [Int], now: Double) -> Admitted {
    var admitted = Admitted()
    for ticket in tickets {
      switch holders.removeValue(forKey: ticket) {
      case .job(let job)?: admitted.jobs.append(job)
      case .waiter(let waiter)?: admitted.waiters.append(waiter)
      case nil: break
      }
    }
    admitted.arm = wake(now: now)
    admitted.feeder = feederToWake()
    return admitted
  }

  /// The timer to arm when a hold on a host expires or a limit grows later while anything
  /// waits for it, if the one armed does not look by then; it replaces that one.
  private mutating func wake(now: Double) -> RunTimer? {
    guard !cancelled, !closed, admission.waitingCount > 0,
      let at = admission.nextChange(now: now)
    else { return nil }
    if let timer, timer.at <= at, timer.at > now { return nil }
    timersArmed += 1
    timer = RunTimer(number: timersArmed, at: at)
    return timer
  }

  // MARK: Feeding and ending

  /// Whether the feeder should read another entry now (see `FeederPause`).
  package var hasRoom: Bool { pause == nil }

  private var pause: FeederPause? {
    if live >= lookahead { return .lookaheadFull }
    if admission.waitingCount >= readyTarget, admission.running >= admission.limit {
      return .enoughReady
    }
    return nil
  }

  /// The feeder asks to wait for room: `true` when it waits (it is resumed by a later
  /// action), `false` when it should read on now.
  package mutating func feederWaits(_ wake: Wake) -> Bool {
    guard !cancelled, let pause else { return false }
    feeder = (wake, pause)
    return true
  }

  /// Takes the waiting feeder when what it waits for has come.
  private mutating func feederToWake() -> Wake? {
    guard let (wake, pause) = feeder else { return nil }
    let ready: Bool
    switch pause {
    case .lookaheadFull:
      ready = live <= lookahead / 2
    case .enoughReady:
      ready = admission.waitingCount <= readyTarget / 2 || admission.running < admission.limit
    }
    guard ready else { return nil }
    feeder = nil
    return wake
  }

  /// Counts one entry's end: its outcome, and its bytes toward progress (`completedBytes`;
  /// a size learned when the manifest gives none). Call `ended(count:)` after a batch.
  package mutating func record(
    _ outcome: EntryOutcome, completedBytes: Int64, sizeInManifest: Bool
  ) {
    tally.completedBytes += completedBytes
    if !sizeInManifest {
      tally.learnedBytes += completedBytes
      tally.learnedEntries += 1
    }
    tally.add(outcome)
  }

  /// `count` entries recorded since the last call have ended: returns the feeder, when the
  /// lookahead has room again, and the scheduler, when this was the last entry.
  package mutating func ended(count: Int) -> [Wake] {
    live -= count
    var wakes: [Wake] = []
    if let feeder = feederToWake() { wakes.append(feeder) }
    if live == 0, feedingDone, let drained {
      self.drained = nil
      wakes.append(drained)
    }
    return wakes
  }

  /// Counts entries that ended before they were handed to the run (skipped, refused), to be
  /// recorded and ended as any other.
  package mutating func arrivedEnded(count: Int) { live += count }

  /// Feeding is done: `true` when every entry has ended already, else `wake` is returned
  /// by the `ended` that ends the last one.
  package mutating func drain(_ wake: Wake) -> Bool {
    feedingDone = true
    guard live > 0 else { return true }
    drained = wake
    return false
  }

  /// Marks the run cancelled; returns what waits, to be released. `nil` when it was
  /// cancelled already.
  package mutating func cancel() -> Cancellation? {
    guard !cancelled else { return nil }
    cancelled = true
    var cancellation = Cancellation()
    for ticket in admission.withdrawAll() {
      switch holders.removeValue(forKey: ticket) {
      case .job(let job)?: cancellation.jobs.append(job)
      case .waiter(let waiter)?: cancellation.waiters.append(waiter)
      case nil: break
      }
    }
    cancellation.feeder = feeder?.wake
    feeder = nil
    cancellation.disarmed = timer
    timer = nil
    return cancellation
  }

  /// The run ended: disarms the timer armed, if any, and arms none from now on.
  package mutating func close() -> RunTimer? {
    closed = true
    defer { timer = nil }
    return timer
  }
}

extension RunStateMachine.Admitted: Sendable where Job: Sendable, Waiter: Sendable, Wake: Sendable {
}
extension RunStateMachine.Submission: Sendable {}
extension RunStateMachine.Cancellation: Sendable
where Job: Sendable, Waiter: Sendable, Wake: Sendable {}
