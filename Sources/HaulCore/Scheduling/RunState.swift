import Foundation
import Synchronization

/// The shared state of one run: its slots (`AdmissionState`, and who waits for each), its
/// tally, and the transfers in flight. The scheduler's tasks and a transport's engine thread
/// use it alike, each step under one lock held for a few instructions, so an entry the
/// engine carries costs no thread hop here; continuations are resumed after the lock is
/// left.
///
/// It holds no behaviour of its own beyond bookkeeping: the admitted jobs its methods
/// return are started by the caller (`EntryRunner.dispatch`).
final class RunState: Sendable {
  /// Who waits for a ticket's slot.
  private enum Holder {
    /// An entry not started yet: admitted, it starts its first attempt.
    case job(EntryJob)
    /// A task waiting to make a further attempt.
    case waiter(CheckedContinuation<Bool, Never>)
  }

  private struct State {
    var admission: AdmissionState<Int>
    /// Each host's number, given the first time it is named.
    var hostIDs: [String: Int] = [:]
    /// Each spelling of a scheme and authority seen in a URL (`hostID(of:)`), with its
    /// host's number.
    var spellings: [Substring: Int] = [:]
    var holders: [Int: Holder] = [:]
    var nextTicket = 0
    /// Hosts that answered in this run (a later refusal is an outage, not the entry's).
    var contacted: Set<Int> = []
    /// When a timer will next look at held or reduced hosts.
    var wakeAt: Double?
    var cancelled = false
    var tally = RunTally()
    /// The transfers in flight, and whether the manifest gives each one's size.
    var active: [Int: (info: EntryInfo, counter: ProgressCounter, sizeInManifest: Bool)] = [:]
    /// Entries handed to the run that have not ended.
    var live = 0
    /// The feeder, waiting for room (`FeederPause` says which).
    var feeder: (continuation: CheckedContinuation<Void, Never>, pause: FeederPause)?
    /// The scheduler, waiting for the last entry to end once feeding is done.
    var drained: CheckedContinuation<Void, Never>?
    var feedingDone = false
    /// The tasks running entries' slow paths, to cancel them with the run.
    var tasks: [Int: Task<Void, Never>] = [:]
    /// Tasks that ended before they were registered.
    var endedTasks: Set<Int> = []
    /// Jobs that ended, for the feeder to drop (see `takeRetired`).
    var retired: [EntryJob] = []

    mutating func id(of host: String) -> Int {
      if let id = hostIDs[host] { return id }
      let id = hostIDs.count
      hostIDs[host] = id
      return id
    }
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

  private let state: Mutex<State>
  /// The most entries alive at once (running, waiting for a slot or for a retry): how far
  /// ahead of the transfers the manifest is read, so that one slow host's waiting entries
  /// leave room for other hosts' (bounded, so memory stays flat in the manifest's length).
  let lookahead: Int
  /// How many entries may wait for a slot while every slot is taken before the feeder
  /// pauses. Why: reading further then only queues entries, whose memory costs page faults
  /// and helps no transfer; the lookahead is read only where it can help, when a slot is
  /// free that the waiting entries' hosts cannot take.
  let readyTarget: Int
  private let started = ContinuousClock.now
  private let retryAfterCap: Double
  /// Starts the jobs a timer admitted; set by the runner, cleared when the run ends.
  private let dispatcher = Mutex<(@Sendable ([EntryJob]) -> Void)?>(nil)

  init(concurrency: Int, perHost: Int, retryAfterCap: Double) {
    state = Mutex(State(admission: AdmissionState(limit: concurrency, perHost: perHost)))
    lookahead = max(4096, concurrency * 16)
    readyTarget = max(64, concurrency * 16)
    self.retryAfterCap = retryAfterCap
  }

  /// Sets (or, with `nil` at the end of the run, clears) what starts jobs a timer admits.
  func setDispatcher(_ dispatch: (@Sendable ([EntryJob]) -> Void)?) {
    dispatcher.withLock { $0 = dispatch }
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
    return state.withLock {
      let id = $0.id(of: host)
      $0.spellings[spelling] = id
      return id
    }
  }

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
    return state.withLock { state in
      state.live += 1
      guard !state.cancelled else { return .cancelled }
      state.nextTicket += 1
      let ticket = state.nextTicket
      if state.admission.request(id: ticket, host: job.hostID, now: now) { return .started }
      state.holders[ticket] = .job(job)
      scheduleWake(&state, now: now)
      return .waiting
    }
  }

  /// Whether the feeder should read another entry now (see `FeederPause`).
  var hasRoom: Bool { state.withLock { pause(for: $0) == nil } }

  /// Why the feeder should wait now, if it should.
  private func pause(for state: State) -> FeederPause? {
    if state.live >= lookahead { return .lookaheadFull }
    if state.admission.waitingCount >= readyTarget,
      state.admission.running >= state.admission.limit
    {
      return .enoughReady
    }
    return nil
  }

  /// Takes the waiting feeder out of `state` when what it waits for has come, for the
  /// caller to resume after leaving the lock.
  private func feederToWake(_ state: inout State) -> CheckedContinuation<Void, Never>? {
    guard let (continuation, pause) = state.feeder else { return nil }
    let wake: Bool
    switch pause {
    case .lookaheadFull:
      wake = state.live <= lookahead / 2
    case .enoughReady:
      wake =
        state.admission.waitingCount <= readyTarget / 2
        || state.admission.running < state.admission.limit
    }
    guard wake else { return nil }
    state.feeder = nil
    return continuation
  }

  /// Waits for a slot to `host` for a further attempt; `false` when the run was cancelled.
  func acquireSlot(host: Int) async -> Bool {
    let now = self.now
    return await withCheckedContinuation { continuation in
      let admitted: Bool? = state.withLock { state in
        guard !state.cancelled else { return false }
        state.nextTicket += 1
        let ticket = state.nextTicket
        if state.admission.request(id: ticket, host: host, now: now) { return true }
        state.holders[ticket] = .waiter(continuation)
        scheduleWake(&state, now: now)
        return nil
      }
      if let admitted { continuation.resume(returning: admitted) }
    }
  }

  /// Frees a slot to `host`, first noting how it answered (see `EntryRunner.releaseSlot`);
  /// returns the entries that may start now.
  func release(host: Int, status: Int?, retryAfter: Double?, answered: Bool) -> [EntryJob] {
    let now = self.now
    return admit {
      if answered || status != nil { $0.contacted.insert(host) }
      if status == 429 || status == 503 {
        let hold = retryAfter.map { min($0, retryAfterCap) }
        $0.admission.throttled(host: host, retryAfter: hold, now: now)
      }
      return $0.admission.release(host: host, now: now)
    }
  }

  /// Admits what time made room for (a hold ended, a limit grew).
  func admitWaiting(after wake: Double) -> [EntryJob] {
    let now = self.now
    return admit {
      if $0.wakeAt == wake { $0.wakeAt = nil }
      return $0.admission.admitWaiting(now: now)
    }
  }

  /// Whether `host` answered earlier in this run.
  func wasContacted(_ host: String) -> Bool {
    state.withLock { $0.contacted.contains($0.id(of: host)) }
  }

  func markDown(host: String) { state.withLock { $0.admission.markDown(host: $0.id(of: host)) } }

  func markUp(host: String) -> [EntryJob] {
    let now = self.now
    return admit { $0.admission.markUp(host: $0.id(of: host), now: now) }
  }

  /// Carries out `change`, which returns the tickets it admitted; resumes the admitted
  /// waiters (after leaving the lock) and returns the admitted jobs for the caller to start.
  private func admit(_ change: (inout State) -> [Int]) -> [EntryJob] {
    var jobs: [EntryJob] = []
    var waiters: [CheckedContinuation<Bool, Never>] = []
    let now = self.now
    let feeder = state.withLock { state in
      for ticket in change(&state) {
        switch state.holders.removeValue(forKey: ticket) {
        case .job(let job)?: jobs.append(job)
        case .waiter(let waiter)?: waiters.append(waiter)
        case nil: break
        }
      }
      scheduleWake(&state, now: now)
      return feederToWake(&state)
    }
    for waiter in waiters { waiter.resume(returning: true) }
    feeder?.resume()
    return jobs
  }

  /// Makes sure a timer looks again when a hold on a host expires or a limit grows, while
  /// anything waits for it. Called under the lock; the timer is a task of its own.
  private func scheduleWake(_ state: inout State, now: Double) {
    guard state.admission.waitingCount > 0, let at = state.admission.nextChange(now: now)
    else { return }
    if let wakeAt = state.wakeAt, wakeAt <= at, wakeAt > now { return }
    state.wakeAt = at
    Task { [self] in
      try? await Task.sleep(for: .seconds(max(0, at - self.now) + 0.001))
      let admitted = admitWaiting(after: at)
      dispatcher.withLock { $0 }?(admitted)
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
    var resume: [CheckedContinuation<Void, Never>] = []
    state.withLock { state in
      for ending in endings {
        if let id = ending.activeID { state.active[id] = nil }
        if let job = ending.retired { state.retired.append(job) }
        state.tally.completedBytes += ending.completedBytes
        if !ending.sizeInManifest {
          state.tally.learnedBytes += ending.completedBytes
          state.tally.learnedEntries += 1
        }
        state.tally.add(ending.outcome)
      }
      state.live -= endings.count
      if let feeder = feederToWake(&state) { resume.append(feeder) }
      if state.live == 0, state.feedingDone, let drained = state.drained {
        state.drained = nil
        resume.append(drained)
      }
    }
    for continuation in resume { continuation.resume() }
  }

  /// The jobs that ended since the last call, for the feeder to drop on its own thread.
  ///
  /// Why: a job's entry (its strings, its URL) and the job itself were allocated by the
  /// feeder; freed on an engine thread, each of them takes the allocator's lock of the
  /// feeder's arena while the feeder allocates from it, and they met there several hundred
  /// times in 5,000 files (a `futex` call each). Dropped by the feeder, they are freed where
  /// they were made. At most the lookahead's worth of jobs waits here.
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
    state.withLock { $0.live += endings.count }
    end(endings)
  }

  /// Waits while the feeder should not read on (see `FeederPause`; called by the feeder
  /// between entries).
  func waitForRoom() async {
    await withCheckedContinuation { continuation in
      let waits = state.withLock { state in
        guard !state.cancelled, let pause = pause(for: state) else { return false }
        state.feeder = (continuation, pause)
        return true
      }
      if !waits { continuation.resume() }
    }
  }

  /// Waits until every entry handed to the run has ended; call once, after the last.
  func waitUntilDrained() async {
    await withCheckedContinuation { continuation in
      let done = state.withLock { state in
        state.feedingDone = true
        guard state.live > 0 else { return true }
        state.drained = continuation
        return false
      }
      if done { continuation.resume() }
    }
  }

  // MARK: Tasks and cancellation

  /// Keeps `task` (running entry `id`'s slow path) so `cancel` can stop it.
  func register(_ task: Task<Void, Never>, id: Int) {
    let cancelNow = state.withLock { state in
      if state.endedTasks.remove(id) != nil { return false }
      state.tasks[id] = task
      return state.cancelled
    }
    if cancelNow { task.cancel() }
  }

  /// Forgets the task of entry `id`, which ended.
  func taskEnded(id: Int) {
    state.withLock { state in
      if state.tasks.removeValue(forKey: id) == nil { state.endedTasks.insert(id) }
    }
  }

  var isCancelled: Bool { state.withLock { $0.cancelled } }

  /// Marks the run cancelled; returns the entries that never started (to be recorded as
  /// cancelled) after cancelling every task and releasing every waiter.
  func cancel() -> [EntryJob] {
    var jobs: [EntryJob] = []
    var waiters: [CheckedContinuation<Bool, Never>] = []
    var tasks: [Task<Void, Never>] = []
    var feeder: CheckedContinuation<Void, Never>?
    state.withLock { state in
      guard !state.cancelled else { return }
      state.cancelled = true
      for ticket in state.admission.withdrawAll() {
        switch state.holders.removeValue(forKey: ticket) {
        case .job(let job)?: jobs.append(job)
        case .waiter(let waiter)?: waiters.append(waiter)
        case nil: break
        }
      }
      tasks = Array(state.tasks.values)
      feeder = state.feeder?.continuation
      state.feeder = nil
    }
    for waiter in waiters { waiter.resume(returning: false) }
    for task in tasks { task.cancel() }
    feeder?.resume()
    return jobs
  }

  // MARK: Progress

  func snapshot(expectedTotal: Int?, expectedBytes: Int64?) -> ProgressSnapshot {
    let elapsed = now
    return state.withLock { state in
      var inFlight: Int64 = 0
      var present: Int64 = 0
      var learnedBytes = state.tally.learnedBytes
      var learnedEntries = state.tally.learnedEntries
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
      return ProgressSnapshot(
        finished: state.tally.total, failed: state.tally.failed,
        total: max(expectedTotal ?? 0, state.tally.total + state.active.count),
        bytes: state.tally.bytes + inFlight, expectedBytes: expectedBytes, active: list,
        elapsed: elapsed, completedBytes: state.tally.completedBytes + present,
        learnedBytes: learnedBytes, learnedEntries: learnedEntries)
    }
  }

  func summary(transport: String) -> RunSummary {
    let elapsed = now
    return state.withLock {
      $0.tally.summary(seconds: elapsed, transport: transport, cancelled: $0.cancelled)
    }
  }
}
