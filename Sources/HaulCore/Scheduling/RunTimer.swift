/// A timer `RunStateMachine` asks its owner to arm: at `at` (seconds on the run's clock),
/// call the machine's `timerFired(number, now:)`. The machine keeps one armed at a time (the
/// next moment a hold ends or a limit grows while something waits); arming an earlier one,
/// cancelling or ending the run disarms the one before, whose firing then changes nothing.
package struct RunTimer: Hashable, Sendable {
  /// Which timer this is, among those the run armed.
  package var number: Int
  package var at: Double

  package init(number: Int, at: Double) {
    self.number = number
    self.at = at
  }
}
