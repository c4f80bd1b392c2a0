/// The daemon's queue as a value: the order of the jobs, which of them run, and what adding,
/// pausing, resuming, cancelling, moving and the end of a run mean. It does no I/O: each event
/// returns the actions the daemon carries out (start a job's run, stop one), so every rule of
/// the queue has a pure test (`JobQueueTests`).
///
/// A job's run may outlive its state: a paused or cancelled job keeps running until its
/// transfers have saved their partial files and the run has ended (`runEnded`). Until then
/// it still counts against `maxRunning`, so the daemon's `-j` bounds the jobs together and
/// two runs never write one job's files at once.
package struct JobQueue: Sendable, Equatable {
  /// One job as the queue sees it.
  package struct Item: Sendable, Equatable {
    package var id: String
    package var state: JobState
    /// Whether the job's run is going (started and not yet ended), whatever its state.
    package var running = false

    package init(id: String, state: JobState, running: Bool = false) {
      self.id = id
      self.state = state
      self.running = running
    }
  }

  /// What the daemon does after an event.
  package enum Action: Sendable, Equatable {
    /// Start the job's run: the job is now `active`.
    case start(String)
    /// Stop the job's run: its transfers end keeping their partial files, then the daemon
    /// reports `runEnded`.
    case stop(String)
  }

  /// Why the queue refuses a call.
  package enum Refusal: Error, Sendable, Equatable {
    case notFound
    /// The job's state does not allow the call (resuming a job that ended).
    case conflict(JobState)
  }

  /// The jobs in queue order: the first waiting job starts first.
  package private(set) var items: [Item] = []
  /// How many runs go at once. Each run has the daemon's whole `-j` and `--per-host`.
  package let maxRunning: Int
  /// Set by `shutDown()`: nothing starts any more.
  package private(set) var shuttingDown = false

  /// A queue over `jobs` as the journal holds them, in queue order. A job that was `active`
  /// when the daemon stopped (a crash, SIGTERM) is run again: its finished entries are
  /// skipped and its partial files resume. Returns the queue and the runs to start.
  package static func restored(_ jobs: [(id: String, state: JobState)], maxRunning: Int)
    -> (queue: JobQueue, actions: [Action])
  {
    var queue = JobQueue(maxRunning: maxRunning)
    queue.items = jobs.map { Item(id: $0.id, state: $0.state == .active ? .waiting : $0.state) }
    let actions = queue.fill()
    return (queue, actions)
  }

  package init(maxRunning: Int) {
    self.maxRunning = max(1, maxRunning)
  }

  /// The job `id`, if the queue holds it.
  package func item(_ id: String) -> Item? {
    items.first { $0.id == id }
  }

  /// Jobs whose run is going.
  package var runningCount: Int { items.reduce(0) { $0 + ($1.running ? 1 : 0) } }

  /// Queues a new job at the end, `paused` when the client asked so.
  package mutating func add(_ id: String, paused: Bool = false) -> [Action] {
    items.append(Item(id: id, state: paused ? .paused : .waiting))
    return fill()
  }

  /// Pauses a job: a waiting one stays out of the queue's way, an active one is stopped.
  /// Pausing a paused job changes nothing.
  package mutating func pause(_ id: String) throws(Refusal) -> [Action] {
    let index = try find(id)
    switch items[index].state {
    case .waiting:
      items[index].state = .paused
      return []
    case .active:
      items[index].state = .paused
      return [.stop(id)]
    case .paused:
      return []
    case .complete, .error, .removed:
      throw .conflict(items[index].state)
    }
  }

  /// Puts a paused job back in the queue at its place; it starts when its turn comes. A job
  /// that ended in `error` is queued again too, to retry its failed entries (its finished
  /// files are skipped). Resuming a waiting or active job changes nothing.
  package mutating func resume(_ id: String) throws(Refusal) -> [Action] {
    let index = try find(id)
    switch items[index].state {
    case .paused, .error:
      items[index].state = .waiting
      return fill()
    case .waiting, .active:
      return []
    case .complete, .removed:
      throw .conflict(items[index].state)
    }
  }

  /// Cancels a job: it is `removed` at once, and its run, if any, is stopped (its partial
  /// files stay). Cancelling a removed job changes nothing.
  package mutating func cancel(_ id: String) throws(Refusal) -> [Action] {
    let index = try find(id)
    switch items[index].state {
    case .waiting, .paused:
      items[index].state = .removed
      return []
    case .active:
      items[index].state = .removed
      return [.stop(id)]
    case .removed:
      return []
    case .complete, .error:
      throw .conflict(items[index].state)
    }
  }

  /// Runs an active job again from the start of its manifest (after its options changed):
  /// its run is stopped and, once it has ended, started again before any job behind it.
  /// Its finished entries are skipped and its partial files resume. Other states change
  /// nothing: their next run takes the new options anyway.
  package mutating func restart(_ id: String) throws(Refusal) -> [Action] {
    let index = try find(id)
    guard items[index].state == .active, items[index].running else { return [] }
    items[index].state = .waiting
    return [.stop(id)]
  }

  /// Moves a job to `position` (0 is the front; past the end is the end). A run already
  /// going is not stopped by a job moved before it.
  package mutating func move(_ id: String, to position: Int) throws(Refusal) -> [Action] {
    let index = try find(id)
    let item = items.remove(at: index)
    items.insert(item, at: min(max(0, position), items.count))
    return fill()
  }

  /// A job's run ended. `failed`: some entry failed after its retries; `interrupted`: the
  /// run was stopped before every entry ended. An active job whose run ended on its own
  /// is `complete` or `error`; one the daemon stopped keeps the state that stopped it,
  /// and one stopped by the daemon's shutdown stays `active`, to run again at the next start.
  package mutating func runEnded(_ id: String, failed: Bool, interrupted: Bool) -> [Action] {
    guard let index = items.firstIndex(where: { $0.id == id }) else { return fill() }
    items[index].running = false
    if items[index].state == .active, !interrupted {
      items[index].state = failed ? .error : .complete
    }
    return fill()
  }

  /// Forgets an ended job.
  package mutating func forget(_ id: String) throws(Refusal) {
    let index = try find(id)
    guard items[index].state.isEnded, !items[index].running else {
      throw .conflict(items[index].state)
    }
    items.remove(at: index)
  }

  /// Stops every run and starts none from now on; active jobs stay `active`, so that the
  /// next start of the daemon runs them again.
  package mutating func shutDown() -> [Action] {
    shuttingDown = true
    return items.filter(\.running).map { .stop($0.id) }
  }

  /// Starts waiting jobs, in queue order, while fewer than `maxRunning` runs go.
  private mutating func fill() -> [Action] {
    guard !shuttingDown else { return [] }
    var actions: [Action] = []
    var running = runningCount
    for index in items.indices where running < maxRunning {
      guard items[index].state == .waiting, !items[index].running else { continue }
      items[index].state = .active
      items[index].running = true
      running += 1
      actions.append(.start(items[index].id))
    }
    return actions
  }

  private func find(_ id: String) throws(Refusal) -> Int {
    guard let index = items.firstIndex(where: { $0.id == id }) else { throw .notFound }
    return index
  }
}
