import Foundation
import Synchronization

/// The shared state of one run, behind one lock: the decisions (`RunStateMachine`: slots,
/// politeness, the feeder's pauses, draining, cancelling, timers, `-j auto`) and the
/// bookkeeping around them (host numbers, the transfers in flight, ended jobs), with the
/// run's task group (`work`), where every task and timer of the run is a child.
/// The scheduler's tasks and a transport's engine thread use it alike, each step under the
/// lock for a few instructions, so an entry the engine carries costs no thread hop here.
///
/// What the machine decides is carried out here after the lock is left: continuations are
/// resumed, timers armed as children of `work`, the work cancelled with the run; the
/// admitted jobs are returned to the caller, who starts them (`EntryRunner.dispatch`).
final class RunState: Sendable {
  private typealias Machine = RunStateMachine<
    EntryJob, CheckedContinuation<Bool, Never>, CheckedContinuation<Void, Never>
  >

  private struct State {
    var machine: Machine
    /// Each host's number, given the first time it is named.
    var hostIDs: [String: Int] = [:]
    /// Each spelling of a scheme and authority seen in a URL (`hostID(of:)`), with its
    /// host's number.
    var spellings: [Substring: Int] = [:]
    /// The transfers in flight, and whether the manifest gives each one's size.
    var active: [Int: (info: EntryInfo, counter: ProgressCounter, sizeInManifest: Bool)] = [:]
    /// Jobs that ended, for the feeder to drop (see `takeRetired`).
    var retired: [EntryJob] = []
    /// Starts the jobs a timer admitted; set by the runner, cleared when the run ends.
    var dispatcher: (@Sendable ([EntryJob]) -> Void)?

    mutating func id(of host: String) -> Int {
      if let id = hostIDs[host] { return id }
      let id = hostIDs.count
      hostIDs[host] = id
      return id
    }

    /// Bytes moved so far: by the entries that ended and the transfers in flight.
    var bytesMoved: Int64 {
      active.values.reduce(machine.tally.bytes) { $0 + $1.counter.moved }
    }
  }

  private let state: Mutex<State>
  /// The run's task group: entries' slow paths, outage probes and timers run as its
  /// children (`RunWork.run`, from the scheduler's run task).
  let work = RunWork()
  private let started = ContinuousClock.now
  /// What the folder listings added to the run so far, for the progress totals.
  let listing = ListingTally()

  /// Origins whose ceiling is not `perHost`.
  private let hostLimits: (any HostLimits)?

  /// - Parameters:
  ///   - controller: chooses the global limit (`-j auto`), with `concurrency` its ceiling;
  ///     `nil` keeps `concurrency` fixed.
  ///   - hostLimits: the origins whose ceiling is not `perHost`, asked once per origin.
  init(
    concurrency: Int, perHost: Int, retryAfterCap: Double,
    controller: ConcurrencyController? = nil, hostLimits: (any HostLimits)? = nil
  ) {
    self.hostLimits = hostLimits
    state = Mutex(
      State(
        machine: Machine(
          concurrency: concurrency, perHost: perHost, retryAfterCap: retryAfterCap,
          controller: controller)))
  }

  /// Sets what starts the jobs a timer admits.
  func setDispatcher(_ dispatch: @escaping @Sendable ([EntryJob]) -> Void) {
    state.withLock { $0.dispatcher = dispatch }
  }

  /// Disarms the run's timer and forgets the dispatcher: the run is over. (The timer's
  /// child ends with the run's group.)
  func close() {
    state.withLock { state in
      state.dispatcher = nil
      _ = state.machine.close()
    }
  }

  /// Seconds since the run started: the clock of `AdmissionState`.
  var now: Double { (ContinuousClock.now - started).inSeconds }

  // MARK: Slots

  /// The number the origin of `url` goes by in this run's slots. A URL is matched by how it
  /// spells its scheme and authority first, so that the many URLs of one server cost a
  /// lookup and no `Origin`, whose three `URL` getters and string are built once per
  /// spelling.
  func hostID(of url: URL) -> Int {
    let text = url.absoluteString
    let spelling = Self.schemeAndAuthority(of: text)
    if let id = state.withLock({ $0.spellings[spelling] }) { return id }
    let host = Origin(url).description
    let ceiling = hostLimits?.perHost(for: url)
    return state.withLock {
      let id = $0.id(of: host)
      if let ceiling { $0.machine.setCeiling(ceiling, for: id) }
      $0.spellings[spelling] = id
      return id
    }
  }

  /// The most transfers the origin numbered `host` (`hostID`) takes at once.
  func ceiling(for host: Int) -> Int { state.withLock { $0.machine.ceiling(for: host) } }

  /// `text` up to the end of its authority: before the first `/`, `?` or `#` after `://`.
  private static func schemeAndAuthority(of text: String) -> Substring {
    var copy = text
    let length = copy.withUTF8 { bytes in
      var index = 0
      var slashes = 0
      while index < bytes.count {
        let byte = bytes[index]
        if byte == UInt8(ascii: "/") {
          slashes += 1
          if slashes == 3 { break }
        } else if slashes >= 2, byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") {
          break
        }
        index += 1
      }
      return index
    }
    return text[..<text.utf8.index(text.startIndex, offsetBy: length)]
  }

  /// What became of an entry handed to the run.
  enum Submission {
    /// It holds its slot: start it now.
    case started
    /// It waits; a later change of the slots returns it.
    case waiting
    /// The run is cancelled: record it as such.
    case cancelled
  }

  /// Hands `job` to the run, which counts it alive until `end` records it.
  func submit(_ job: EntryJob) -> Submission {
    let now = self.now
    let submission = state.withLock { $0.machine.submit(job, host: job.hostID, now: now) }
    switch submission {
    case .started: return .started
    case .cancelled: return .cancelled
    case .waiting(let timer):
      arm(timer)
      return .waiting
    }
  }

  /// Whether the feeder should read another entry now.
  var hasRoom: Bool { state.withLock { $0.machine.hasRoom } }

  /// Waits for a slot to `host` for a further attempt; `false` when the run was cancelled.
  func acquireSlot(host: Int) async -> Bool {
    let now = self.now
    return await withCheckedContinuation { continuation in
      let (admitted, timer) = state.withLock {
        $0.machine.acquire(continuation, host: host, now: now)
      }
      arm(timer)
      if let admitted { continuation.resume(returning: admitted) }
    }
  }

  /// Frees a slot to `host`, first noting how it answered (see `EntryRunner.releaseSlot`);
  /// returns the entries that may start now.
  func release(host: Int, status: Int?, retryAfter: Double?, answered: Bool) -> [EntryJob] {
    let now = self.now
    return carryOut {
      $0.machine.release(
        host: host, status: status, retryAfter: retryAfter, answered: answered, now: now)
    }
  }

  /// Notes that `host` multiplexes (it answered over HTTP/2, or its connection agreed on it
  /// after a TLS `handshake` of that many seconds); returns the entries its larger limit
  /// (and under `-j auto` the larger global limit) lets start now.
  func noteMultiplexed(host: Int, handshake: Double?) -> [EntryJob] {
    let now = self.now
    return carryOut {
      $0.machine.multiplexes(host: host, handshake: handshake, bytes: $0.bytesMoved, now: now)
    }
  }

  /// Notes an exchange's times (see `RunStateMachine.answered`); returns the entries a
  /// grown limit lets start.
  func answered(_ timing: TransferTiming) -> [EntryJob] {
    let now = self.now
    return carryOut { $0.machine.answered(timing, bytes: $0.bytesMoved, now: now) }
  }

  /// Lets `-j auto` look at the run; returns the entries a grown limit lets start.
  func tune() -> [EntryJob] {
    let now = self.now
    return carryOut { $0.machine.tune(bytes: $0.bytesMoved, now: now) }
  }

  /// Whether `host` answered earlier in this run.
  func wasContacted(_ host: String) -> Bool {
    state.withLock { $0.machine.wasContacted($0.id(of: host)) }
  }

  func markDown(host: String) { state.withLock { $0.machine.markDown(host: $0.id(of: host)) } }

  func markUp(host: String) -> [EntryJob] {
    let now = self.now
    return carryOut { $0.machine.markUp(host: $0.id(of: host), now: now) }
  }

  /// Carries out a change of the slots: resumes the admitted waiters and the feeder (after
  /// leaving the lock), arms a timer if one is due, and returns the admitted jobs for the
  /// caller to start.
  private func carryOut(_ change: (inout State) -> Machine.Admitted) -> [EntryJob] {
    let admitted = state.withLock { change(&$0) }
    for waiter in admitted.waiters { waiter.resume(returning: true) }
    admitted.feeder?.resume()
    arm(admitted.arm)
    return admitted.jobs
  }

  /// Arms `timer` as a child of the run's work: it sleeps until the timer's moment and
  /// tells the machine, which admits what waits for it (a hold ends, a limit grows) unless
  /// it disarmed the timer meanwhile (a disarmed timer's child sleeps on and then does
  /// nothing; a child cannot be cancelled alone). It holds the run only weakly; cancelling
  /// the run, or its end, cancels it with the run's group.
  private func arm(_ timer: RunTimer?) {
    guard let timer else { return }
    let deadline = started.advanced(by: .seconds(timer.at + 0.001))
    work.add(.timer) { [weak self] in
      try? await Task.sleep(until: deadline, clock: .continuous)
      guard !Task.isCancelled, let self else { return }
      let now = self.now
      let admitted = self.carryOut { $0.machine.timerFired(timer.number, now: now) }
      self.state.withLock { $0.dispatcher }?(admitted)
    }
  }

  /// The timer the machine has armed and not disarmed, if any.
  var armedTimer: RunTimer? { state.withLock { $0.machine.timer } }

  /// What the run holds now: slots taken, the tasks and timers alive in its group (all none
  /// once a run ended, whatever state its attempts were cancelled in).
  var holdings: RunHoldings {
    let slots = state.withLock { $0.machine.running }
    let alive = work.alive
    return RunHoldings(slots: slots, tasks: alive.tasks, timers: alive.timers)
  }

  // MARK: Entries

  /// Lists `job` among the transfers in flight (for the progress display).
  func activate(_ job: EntryJob) {
    state.withLock { $0.active[job.id] = (job.info, job.counter, job.entry.size != nil) }
  }

  /// Records how an entry ended: its outcome, its bytes toward progress, its removal from
  /// the transfers in flight. Wakes the feeder when the lookahead has room again and the
  /// scheduler when this was the last entry.
  func end(_ ending: EntryRunner.Ending) {
    end(CollectionOfOne(ending))
  }

  /// Records several entries' ends in one step.
  func end<Endings: Collection<EntryRunner.Ending>>(_ endings: Endings) {
    let wakes = state.withLock { state in
      for ending in endings {
        if let id = ending.activeID { state.active[id] = nil }
        if let job = ending.retired { state.retired.append(job) }
        state.machine.record(
          ending.outcome, completedBytes: ending.completedBytes,
          sizeInManifest: ending.sizeInManifest)
      }
      return state.machine.ended(count: endings.count)
    }
    for wake in wakes { wake.resume() }
  }

  /// The jobs that ended since the last call, for the feeder to drop on its own thread.
  ///
  /// Why: a job's entry (its strings, its URL) and the job itself are allocated by the
  /// feeder; freed on an engine thread, each of them takes the allocator's lock of the
  /// feeder's arena while the feeder allocates from it, and the two threads meet on that
  /// lock (a `futex` call each time). Dropped by the feeder, they are freed where they were
  /// made. At most the lookahead's worth of jobs waits here, and none once the run drained:
  /// a job holds its runner, which holds this state, so the feeder takes the last ones then.
  func takeRetired() -> [EntryJob] {
    state.withLock { state in
      guard !state.retired.isEmpty else { return [] }
      var taken: [EntryJob] = []
      taken.reserveCapacity(state.retired.count)
      swap(&taken, &state.retired)
      return taken
    }
  }

  /// Counts an entry that ended before it was handed to the run (skipped, refused).
  func endUnsubmitted(_ endings: [EntryRunner.Ending]) {
    state.withLock { $0.machine.arrivedEnded(count: endings.count) }
    end(endings)
  }

  /// Waits while the feeder should not read on (called by the feeder between entries).
  func waitForRoom() async {
    await withCheckedContinuation { continuation in
      let waits = state.withLock { $0.machine.feederWaits(continuation) }
      if !waits { continuation.resume() }
    }
  }

  /// Waits until every entry handed to the run has ended; call once, after the last.
  func waitUntilDrained() async {
    await withCheckedContinuation { continuation in
      let done = state.withLock { $0.machine.drain(continuation) }
      if done { continuation.resume() }
    }
  }

  // MARK: Cancellation

  /// Whether the run is cancelled: the machine's word, the one every part of the run asks.
  var isCancelled: Bool { state.withLock { $0.machine.cancelled } }

  /// Cancels the run, the machine's event: releases every waiter and the feeder, cancels
  /// the run's work (every entry's task, probe and timer, by the group's structure), and
  /// returns the entries that never started, to be recorded as cancelled. Once only: later
  /// calls return nothing.
  func cancel() -> [EntryJob] {
    guard let cancellation = state.withLock({ $0.machine.cancel() }) else { return [] }
    for waiter in cancellation.waiters { waiter.resume(returning: false) }
    cancellation.feeder?.resume()
    work.cancel()
    return cancellation.jobs
  }

  // MARK: Progress

  func snapshot(expectedTotal: Int?, expectedBytes: Int64?) -> ProgressSnapshot {
    let elapsed = now
    return state.withLock { state in
      var inFlight: Int64 = 0
      var present: Int64 = 0
      let tally = state.machine.tally
      var learnedBytes = tally.learnedBytes
      var learnedEntries = tally.learnedEntries
      let list = state.active.sorted { $0.key < $1.key }.map { _, value in
        inFlight += value.counter.moved
        present += value.counter.present
        var entry = value.info
        if entry.expectedBytes == nil { entry.expectedBytes = value.counter.expected }
        if !value.sizeInManifest, let learned = entry.expectedBytes {
          learnedBytes += learned
          learnedEntries += 1
        }
        return ProgressSnapshot.Active(entry: entry, bytes: value.counter.present)
      }
      var snapshot = ProgressSnapshot(
        finished: tally.total, failed: tally.failed,
        total: max(
          (expectedTotal ?? 0) + listing.addedEntries, tally.total + state.active.count),
        bytes: tally.bytes + inFlight, expectedBytes: expectedBytes, active: list,
        elapsed: elapsed, completedBytes: tally.completedBytes + present,
        learnedBytes: learnedBytes, learnedEntries: learnedEntries)
      snapshot.listedBytes = listing.listedBytes
      snapshot.listedWithoutSize = listing.addedWithoutSize
      return snapshot
    }
  }

  func summary(transport: String) -> RunSummary {
    let elapsed = now
    return state.withLock {
      var summary = $0.machine.tally.summary(
        seconds: elapsed, transport: transport, cancelled: $0.machine.cancelled)
      summary.concurrency = $0.machine.limit
      return summary
    }
  }
}
