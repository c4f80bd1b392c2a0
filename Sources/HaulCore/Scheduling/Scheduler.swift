import Foundation
import Synchronization

/// Runs a manifest's entries through a transport: at most `concurrency` at once and
/// `perHost` per host, skipping what is done, resuming partial files, retrying what is
/// transient, trying mirrors, verifying every byte, and reporting as it goes.
///
/// Entries are pulled from the sequence only as room appears (a bounded window of entries
/// is alive at once, whatever the manifest's length). Events are delivered in order through
/// the stream `run` returns; progress is sampled every `progressInterval`, never queued per
/// chunk. `cancel()` stops new work: transfers in flight end with `cancelled` and keep their
/// partial files, and every entry not finished is reported `failed` with `cancelled`.
public actor Scheduler {
  let transport: any Transport
  let options: SchedulerOptions
  let retryPolicy: RetryPolicy
  private var admission: AdmissionState
  private var slotWaiters: [Int: CheckedContinuation<Bool, Never>] = [:]
  private var wakeAt: Double?
  private var contacted: Set<String> = []
  private var outages: [String: [CheckedContinuation<Bool, Never>]] = [:]
  private var active: [Int: (EntryInfo, ProgressCounter)] = [:]
  private var tally = RunTally()
  private var cancelled = false
  /// `cancelled`, readable without a hop onto the actor: the feeder checks it once per entry.
  private nonisolated let cancelFlag = Atomic<Bool>(false)
  private var runTask: Task<Void, Never>?
  private var nextTicket = 0
  private let started = ContinuousClock.now

  public init(transport: any Transport, options: SchedulerOptions) {
    self.transport = transport
    self.options = options
    self.retryPolicy = RetryPolicy(
      retries: options.retries, base: options.backoffBase, cap: options.backoffCap)
    self.admission = AdmissionState(limit: options.concurrency, perHost: options.perHost)
  }

  /// Runs every entry of `entries` and returns the events of the run; the stream ends after
  /// the `summary` event. Call once per scheduler (this or `run(_:onEvent:)`).
  public nonisolated func run<Entries: Sequence<ManifestEntry> & Sendable>(_ entries: Entries)
    -> AsyncStream<TransferEvent>
  {
    let (stream, continuation) = AsyncStream.makeStream(of: TransferEvent.self)
    Task {
      await self.start(entries, emit: SerializedEventHandler { continuation.yield($0) })
      continuation.finish()
    }
    return stream
  }

  /// Runs every entry of `entries`, handing each event to `onEvent` as it happens, and
  /// returns after the `summary` event was handled. Calls come one at a time, from the
  /// scheduler's tasks: a handler should be quick, and a slow one holds the run back.
  /// Call once per scheduler (this or `run(_:)`).
  public func run<Entries: Sequence<ManifestEntry> & Sendable>(
    _ entries: Entries, onEvent: @escaping TransferEventHandler
  ) async {
    await start(entries, emit: SerializedEventHandler(onEvent))
  }

  /// Stops starting transfers; running ones end with `cancelled` and keep their partial data
  /// for the next run. Idempotent.
  public func cancel() {
    guard !cancelled else { return }
    cancelled = true
    cancelFlag.store(true, ordering: .relaxed)
    runTask?.cancel()
    _ = admission.withdrawAll()
    for (_, waiter) in slotWaiters { waiter.resume(returning: false) }
    slotWaiters.removeAll()
    for waiter in outages.values.joined() { waiter.resume(returning: false) }
    outages.removeAll()
  }

  private func start<Entries: Sequence<ManifestEntry> & Sendable>(
    _ entries: Entries, emit events: SerializedEventHandler
  ) async {
    let window = max(options.concurrency * 4, 16)
    let task = Task.detached { [options] in
      let directory: OutputDirectory
      do throws(TransferError) {
        directory = try OutputDirectory(path: options.outputDirectory)
      } catch {
        var unrun = EndingBatch(scheduler: self, events: events)
        for entry in entries { await unrun.add(.init(outcome: Self.outcome(entry, error: error))) }
        await unrun.flush()
        return
      }
      let runner = EntryRunner(scheduler: self, directory: directory, events: events)
      var iterator = entries.makeIterator()
      var unrun = EndingBatch(scheduler: self, events: events)
      await withTaskGroup(of: Void.self) { group in
        var live = 0
        while let entry = iterator.next() {
          if self.cancelFlag.load(ordering: .relaxed) {
            await unrun.add(.init(outcome: Self.outcome(entry, error: Self.cancelledError)))
            continue
          }
          if live >= window {
            await group.next()
            live -= 1
          }
          group.addTask {
            let ending = await runner.run(entry)
            await self.complete(ending, events)
          }
          live += 1
        }
      }
      await unrun.flush()
    }
    runTask = task
    if cancelled { task.cancel() }
    let sampler = Task {
      while !Task.isCancelled {
        try? await Task.sleep(for: .seconds(options.progressInterval))
        events(.progress(self.snapshot()))
      }
    }
    await task.value
    sampler.cancel()
    events(.progress(snapshot()))
    events(
      .summary(tally.summary(seconds: elapsed, transport: transport.name, cancelled: cancelled)))
  }

  private var elapsed: Double {
    (ContinuousClock.now - started).inSeconds
  }

  static let cancelledError = TransferError(.cancelled, "the run was interrupted")

  static func outcome(_ entry: ManifestEntry, error: TransferError) -> EntryOutcome {
    EntryOutcome(
      line: entry.line, text: entry.text, url: Exchange.redacted(entry.url), path: entry.path,
      operation: entry.operation, status: .failed, bytes: 0, attempts: 0, seconds: 0,
      sha256: nil, error: error)
  }

  /// Records entries that never ran, a batch per hop onto the actor: after a cancel, the rest
  /// of a million-line manifest is recorded in seconds, within the CLI's exit deadline.
  private struct EndingBatch {
    let scheduler: Scheduler
    let events: SerializedEventHandler
    var endings: [EntryRunner.Ending] = []

    mutating func add(_ ending: EntryRunner.Ending) async {
      endings.append(ending)
      if endings.count >= 1024 { await flush() }
    }

    mutating func flush() async {
      guard !endings.isEmpty else { return }
      await scheduler.complete(endings, events)
      endings.removeAll(keepingCapacity: true)
    }
  }

  private func complete(
    _ endings: [EntryRunner.Ending], _ events: SerializedEventHandler
  ) {
    for ending in endings { complete(ending, events) }
  }

  /// Records an entry's end in one step: its outcome, its bytes toward the progress
  /// display, and its removal from the active list.
  private func complete(
    _ ending: EntryRunner.Ending, _ events: SerializedEventHandler
  ) {
    if let id = ending.activeID { active[id] = nil }
    tally.completedBytes += ending.completedBytes
    tally.add(ending.outcome)
    events(.finished(ending.outcome))
  }

  // MARK: Slots

  /// Seconds since the run started, the clock of `AdmissionState`.
  private var now: Double { elapsed }

  /// Waits for room to run one attempt against `host`; `false` when the run was cancelled.
  /// `activating` lists an entry among the active transfers once it holds its first slot.
  func acquireSlot(host: String, activating entry: ActiveEntry? = nil) async -> Bool {
    guard !cancelled else { return false }
    nextTicket += 1
    let ticket = nextTicket
    if !admission.request(id: ticket, host: host, now: now) {
      scheduleWake()
      let admitted = await withCheckedContinuation { continuation in
        slotWaiters[ticket] = continuation
      }
      guard admitted else { return false }
    }
    if let entry { active[entry.id] = (entry.info, entry.counter) }
    return true
  }

  /// An entry as the progress display lists it while it runs.
  struct ActiveEntry: Sendable {
    var id: Int
    var info: EntryInfo
    var counter: ProgressCounter
  }

  /// Frees a slot taken with `acquireSlot`, first noting how the host answered: `status`
  /// (a 429 or 503 makes haul polite to it) or, without one, whether it sent a response head
  /// at all (`answered`: it was reachable in this run, so a later refusal is an outage to wait
  /// out). Noting before freeing means a 429/503 lowers the host's limit before the freed slot
  /// can start another request there. The host is held for its `Retry-After`, capped as the
  /// entries' own delays are (a server asking for a day must not hold the host past the retry
  /// that follows in 10 minutes).
  func releaseSlot(
    host: String, status: Int? = nil, retryAfter: Double? = nil, answered: Bool = false
  ) {
    if answered || status != nil { contacted.insert(host) }
    if status == 429 || status == 503 {
      let hold = retryAfter.map { min($0, retryPolicy.retryAfterCap) }
      admission.throttled(host: host, retryAfter: hold, now: now)
    }
    admit(admission.release(host: host, now: now))
  }

  private func admit(_ tickets: [Int]) {
    for ticket in tickets {
      slotWaiters.removeValue(forKey: ticket)?.resume(returning: true)
    }
    scheduleWake()
  }

  /// Makes sure someone looks again when a hold on a host expires or a limit grows.
  private func scheduleWake() {
    guard admission.waitingCount > 0, let at = admission.nextChange(now: now) else { return }
    if let wakeAt, wakeAt <= at, wakeAt > now { return }
    wakeAt = at
    Task {
      try? await Task.sleep(for: .seconds(max(0, at - self.now) + 0.001))
      self.wake(at: at)
    }
  }

  private func wake(at: Double) {
    if wakeAt == at { wakeAt = nil }
    admit(admission.admitWaiting(now: now))
  }

  // MARK: Connectivity

  /// Called when an attempt to `origin` failed with a connection error. When the host had
  /// answered earlier in this run and does not accept connections now, it is down: nothing
  /// new starts there, one probe retries with backoff, and this returns `true` once the host
  /// is back (the attempt then does not count against the entry's retries). Returns `false`
  /// when the failure was the entry's alone (the host accepts connections, or never did).
  func hostUnreachable(_ origin: Origin) async -> Bool {
    let host = origin.description
    guard contacted.contains(host), !cancelled else { return false }
    if outages[host] == nil {
      admission.markDown(host: host)
      outages[host] = []
      Task { await self.probe(origin) }
    }
    return await withCheckedContinuation { continuation in
      outages[host, default: []].append(continuation)
    }
  }

  private func probe(_ origin: Origin) async {
    let host = origin.description
    var delay = 0.25
    let began = now
    var waited = false
    var reachable = false
    while !cancelled {
      reachable = await Task.detached {
        ConnectivityProbe.canConnect(host: origin.host, port: origin.port, timeout: 2)
      }.value
      if reachable || now - began > options.outageLimit { break }
      waited = true
      try? await Task.sleep(for: .seconds(delay))
      delay = min(delay * 2, 30)
    }
    let waiters = outages.removeValue(forKey: host) ?? []
    admit(admission.markUp(host: host, now: now))
    // Only a host that came back after a wait excuses the failed attempts; past the outage
    // limit (or on cancel) they count, so retries are spent and the run ends.
    let excused = waited && reachable && !cancelled
    for waiter in waiters { waiter.resume(returning: excused) }
  }

  // MARK: Progress

  private func snapshot() -> ProgressSnapshot {
    var inFlight: Int64 = 0
    var present: Int64 = 0
    let list = active.sorted { $0.key < $1.key }.map { _, value in
      inFlight += value.1.moved
      present += value.1.present
      return ProgressSnapshot.Active(entry: value.0, bytes: value.1.present)
    }
    return ProgressSnapshot(
      finished: tally.total, failed: tally.failed,
      total: max(options.expectedTotal ?? 0, tally.total + active.count),
      bytes: tally.bytes + inFlight,
      expectedBytes: options.expectedBytes, active: list, elapsed: elapsed,
      completedBytes: tally.completedBytes + present)
  }
}
