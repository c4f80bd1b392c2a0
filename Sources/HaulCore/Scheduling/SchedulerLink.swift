/// What a run's entries ask of the scheduler that runs them: whether a host that refused a
/// connection is down (`Scheduler.hostUnreachable`).
///
/// It holds the scheduler weakly: the scheduler owns the runner for the length of the run
/// (`Scheduler.runner`, awaited in `start`), not the other way round, so the two make no
/// cycle.
struct SchedulerLink: Sendable {
  private weak let scheduler: Scheduler?

  init(_ scheduler: Scheduler) {
    self.scheduler = scheduler
  }

  /// `Scheduler.hostUnreachable`; `false` once the scheduler is gone, when nothing waits
  /// for a host any more.
  func hostUnreachable(_ origin: Origin) async -> Bool {
    await scheduler?.hostUnreachable(origin) ?? false
  }
}
