/// The work of one run on its way into the run's task group, as a value: the items added
/// and not yet taken, what is alive (counted from the moment an item is added until it
/// ends, so nothing can end before it is counted), whether the group must cancel its
/// children, and whether the run is over.
///
/// The group's owner takes what is there (`take`) and waits when nothing is; whoever adds an
/// item, cancels or closes is handed the waiting owner to resume (`Resume`), after leaving
/// the lock. `RunWork` owns one behind its lock; tests use plain values. See
/// `WorkQueueTests`.
package struct WorkQueue<Item, Owner> {
  /// What the group's owner does next.
  package typealias Next = WorkStep<Item>

  /// The owner to resume, with what it does next.
  package typealias Resume = (owner: Owner, next: Next)

  private var pending: [Item] = []
  /// The owner, waiting for the next step; only while nothing is pending.
  private var waiting: Owner?
  private var cancelPending = false
  private var closed = false
  /// Whether the run's work was cancelled.
  package private(set) var cancelled = false
  /// Items of kind `task` added and not ended.
  package private(set) var tasks = 0
  /// Items of kind `timer` added and not ended.
  package private(set) var timers = 0
  /// Items of kind `task` ever added.
  package private(set) var tasksAdded = 0

  package init() {}

  /// Adds `item`, counted alive until `ended(kind)`: `false` (and not added) once the run
  /// is over. An item added after `cancel` is added, and starts cancelled.
  package mutating func add(_ item: Item, kind: WorkKind) -> (added: Bool, resume: Resume?) {
    guard !closed else { return (false, nil) }
    switch kind {
    case .task:
      tasks += 1
      tasksAdded += 1
    case .timer: timers += 1
    }
    if let owner = waiting {
      waiting = nil
      return (true, (owner, .start([item])))
    }
    pending.append(item)
    return (true, nil)
  }

  /// The owner asks what to do next: `nil` when there is nothing yet (`owner` is kept, and
  /// handed back by the `add`, `cancel` or `close` that gives it something).
  package mutating func take(_ owner: Owner) -> Next? {
    if cancelPending {
      cancelPending = false
      return .cancel
    }
    if !pending.isEmpty {
      var items: [Item] = []
      swap(&items, &pending)
      return .start(items)
    }
    if closed { return .finished }
    waiting = owner
    return nil
  }

  /// An item of `kind` ended.
  package mutating func ended(_ kind: WorkKind) {
    switch kind {
    case .task: tasks -= 1
    case .timer: timers -= 1
    }
  }

  /// The run is cancelled: the group cancels its children. Once only.
  package mutating func cancel() -> Resume? {
    guard !cancelled else { return nil }
    cancelled = true
    if let owner = waiting {
      waiting = nil
      return (owner, .cancel)
    }
    cancelPending = true
    return nil
  }

  /// The run is over (every entry ended): nothing is added from now on.
  package mutating func close() -> Resume? {
    closed = true
    guard let owner = waiting else { return nil }
    waiting = nil
    return (owner, .finished)
  }
}

/// What a piece of a run's work is, for what the run holds (`RunHoldings`).
package enum WorkKind: Sendable {
  /// An entry's slow path, an outage's probe.
  case task
  /// A timer the run's machine armed.
  case timer
}

/// What the owner of a run's task group does next (`WorkQueue.take`).
package enum WorkStep<Item> {
  /// Add these items as children.
  case start([Item])
  /// Cancel every child, those added later included: the run is cancelled.
  case cancel
  /// The run is over: nothing more comes. Cancel what is left (timers) and wait for it.
  case finished
}

extension WorkStep: Sendable where Item: Sendable {}
