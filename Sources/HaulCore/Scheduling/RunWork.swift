import Synchronization

/// The one task group of a run: the feeder and every piece of work the run starts later (an
/// entry's slow path, an outage's probe, a timer its machine armed) run as its children,
/// so the run's task outlives them all and cancelling the run cancels them by structure.
///
/// Work is added from any thread (the engine's, a finisher's, a task) into a `WorkQueue`
/// behind a lock; the group's owner takes it from there and adds each item as a child.
/// Nothing here decides when to cancel: `RunState` carries out its machine's cancellation
/// through `cancel()`.
final class RunWork: Sendable {
  typealias Item = @Sendable () async -> Void
  private typealias Queue = WorkQueue<Item, CheckedContinuation<WorkStep<Item>, Never>>

  private let queue = Mutex(Queue())

  /// Runs `main` and every item added until `main` returns, each as a child of one task
  /// group; returns once they all ended. When `main` returns, the run is over: what is left
  /// (timers, an entry's task returning from its end) is cancelled and waited for.
  func run(_ main: @escaping @Sendable () async -> Void) async {
    await withDiscardingTaskGroup { group in
      group.addTask {
        await main()
        self.close()
      }
      while true {
        switch await next() {
        case .start(let items): for item in items { group.addTask(operation: item) }
        case .cancel: group.cancelAll()
        case .finished:
          group.cancelAll()
          return
        }
      }
    }
  }

  private func next() async -> WorkStep<Item> {
    await withCheckedContinuation { owner in
      if let next = queue.withLock({ $0.take(owner) }) { owner.resume(returning: next) }
    }
  }

  /// Adds `body` as a child of the run's group, counted alive from now until it ends;
  /// `false` (and not run) once the run is over. Added after `cancel()`, it starts
  /// cancelled.
  @discardableResult
  func add(_ kind: WorkKind, _ body: @escaping Item) -> Bool {
    let item: Item = {
      await body()
      self.queue.withLock { $0.ended(kind) }
    }
    let (added, resume) = queue.withLock { $0.add(item, kind: kind) }
    if let resume { resume.owner.resume(returning: resume.next) }
    return added
  }

  /// Cancels every child of the run's group, those added later included.
  func cancel() {
    if let resume = queue.withLock({ $0.cancel() }) { resume.owner.resume(returning: resume.next) }
  }

  private func close() {
    if let resume = queue.withLock({ $0.close() }) { resume.owner.resume(returning: resume.next) }
  }

  /// The items alive: `task`s and `timer`s added and not ended.
  var alive: (tasks: Int, timers: Int) { queue.withLock { ($0.tasks, $0.timers) } }

  /// The `task`s added so far, ended or not.
  var tasksAdded: Int { queue.withLock { $0.tasksAdded } }
}
