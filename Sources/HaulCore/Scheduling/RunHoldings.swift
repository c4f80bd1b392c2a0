/// What a run holds at one moment, as `Scheduler.holdings()` reads it: what a run that
/// ended, finished or cancelled, must have given back.
package struct RunHoldings: Sendable, Hashable, CustomStringConvertible {
  /// Slots taken (entries' attempts and segments).
  package var slots: Int
  /// Tasks of the run's group alive: entries' slow paths, outage probes.
  package var tasks: Int
  /// Timers of the run's group alive: those its machine armed (a politeness hold, a
  /// host's regrowth), `-j auto`'s tuner.
  package var timers: Int

  package static let none = RunHoldings(slots: 0, tasks: 0, timers: 0)

  package var description: String { "\(slots) slots, \(tasks) tasks, \(timers) timers" }
}
