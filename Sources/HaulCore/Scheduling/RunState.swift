import Foundation
import Synchronization

/// The shared state of one run, behind one lock: the decisions (`RunStateMachine`: slots,
/// politeness, the feeder's pauses, draining, cancelling, `-j auto`) and the bookkeeping
/// around them (host numbers, the transfers in flight, the tasks to cancel, ended jobs).
/// The scheduler's tasks and a transport's engine thread use it alike, each step under the
/// lock for a few instructions, so an entry the engine carries costs no thread hop here.
///
/// What the machine decides is carried out here after the lock is left: continuations are
/// resumed, timers armed; the admitted jobs are returned to the caller, who starts them
/// (`EntryRunner.dispatch`).
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
    /// The tasks running entries' slow paths, to cancel them with the run.
    var tasks: [Int: Task<Void, Never>] = [:]
    /// Tasks that ended before they were registered.
    var endedTasks: Set<Int> = []
    /// Jobs that ended, for the feeder to drop (see `takeRetired`).
    var retired: [EntryJob] = []
    /// Starts the jobs a timer admitted; set by the runner, cleared when the run ends.
    var dispatcher: (@Sendable ([EntryJob]) -> Void)?
    /// The timers armed for the machine (`arm`), by number: each removes itself when it
    /// fires; cancelling or ending the run cancels the rest.
    var timers: [Int: Task<Void, Never>] = [:]
    var nextTimer = 0
    /// The run was cancelled or ended: no timer is armed any more.
    var timersClosed = false

    mutating func id(of host: String) -> Int {
      if let id = hostIDs[host] { return id }
      let id = hostIDs.count
      hostIDs[host] = id
      return id
    }

    /// Stops arming timers; returns the armed ones, to cancel outside the lock.
    mutating func closeTimers() -> [Task<Void, Never>] {
      timersClosed = true
      defer { timers = [:] }
      return Array(timers.values)
    }

    /// Bytes moved so far: by the entries that ended and the transfers in flight.
    var bytesMoved: Int64 {
      active.values.reduce(machine.tally.bytes) { $0 + $1.counter.moved }
    }
  }

  private let state: Mutex<State>
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

  /// Ends the run's timers and forgets the dispatcher: the run is over.
  func close() {
    let timers = state.withLock { state in
      state.dispatcher = nil
      return state.closeTimers()
    }
    for timer in timers { timer.cancel() }
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
    case .waiting(let wakeAt):
      arm(wakeAt)
      return .waiting
    }
  }

  /// Whether the feeder should read another entry now.
  var hasRoom: Bool { state.withLock { $0.machine.hasRoom } }

  /// Waits for a slot to `host` for a further attempt; `false` when the run was cancelled.
  func acquireSlot(host: Int) async -> Bool {
    let now = self.now
    return await withCheckedContinuation { continuation in
      let (admitted, wakeAt) = state.withLock {
        $0.machine.acquire(continuation, host: host, now: now)
      }
      arm(wakeAt)
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

  /// Admits what time made room for (a hold ended, a limit grew).
  func admitWaiting(after wake: Double) -> [EntryJob] {
    let now = self.now
    return carryOut { $0.machine.admitWaiting(after: wake, now: now) }
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
    arm(admitted.wakeAt)
    return admitted.jobs
  }

  /// Starts a timer that admits what waits for `at` (a hold ends, a limit grows). The run
  /// owns it: it holds the run only weakly, and cancelling or ending the run cancels it.
  private func arm(_ at: Double?) {
    guard let at else { return }
    let deadline = started.advanced(by: .seconds(at + 0.001))
    state.withLock { state in
      guard !state.timersClosed else { return }
      let number = state.nextTimer
      state.nextTimer += 1
      state.timers[number] = Task { [weak self] in
        try? await Task.sleep(until: deadline, clock: .continuous)
        guard !Task.isCancelled, let self else { return }
        self.timerFired(number, armedFor: at)
      }
    }
  }

  private func timerFired(_ number: Int, armedFor at: Double) {
    state.withLock { _ = $0.timers.removeValue(forKey: number) }
    let admitted = admitWaiting(after: at)
    state.withLock { $0.dispatcher }?(admitted)
  }

  /// How many timers are armed and have not fired.
  var armedTimers: Int { state.withLock { $0.timers.count } }

  /// What the run holds now: slots taken, entry tasks registered, timers armed (all none
  /// once a run ended, whatever state its attempts were cancelled in).
  var holdings: RunHoldings {
    state.withLock {
      RunHoldings(slots: $0.machine.running, tasks: $0.tasks.count, timers: $0.timers.count)
    }
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

  // MARK: Tasks and cancellation

  /// Keeps `task` (running entry `id`'s slow path) so `cancel` can stop it.
  func register(_ task: Task<Void, Never>, id: Int) {
    let cancelNow = state.withLock { state in
      if state.endedTasks.remove(id) != nil { return false }
      state.tasks[id] = task
      return state.machine.cancelled
    }
    if cancelNow { task.cancel() }
  }

  /// Forgets the task of entry `id`, which ended.
  func taskEnded(id: Int) {
    state.withLock { state in
      if state.tasks.removeValue(forKey: id) == nil { state.endedTasks.insert(id) }
    }
  }

  var isCancelled: Bool { state.withLock { $0.machine.cancelled } }

  /// Marks the run cancelled; returns the entries that never started (to be recorded as
  /// cancelled) after cancelling every task and releasing every waiter.
  func cancel() -> [EntryJob] {
    let (cancellation, tasks, timers) = state.withLock { state in
      (
        state.machine.cancel(), state.machine.cancelled ? Array(state.tasks.values) : [],
        state.closeTimers()
      )
    }
    for timer in timers { timer.cancel() }
    guard let cancellation else { return [] }
    for waiter in cancellation.waiters { waiter.resume(returning: false) }
    for task in tasks { task.cancel() }
    cancellation.feeder?.resume()
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
