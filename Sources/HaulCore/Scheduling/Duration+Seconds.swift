extension Duration {
  /// The duration in seconds, as a `Double` (reports, rates, the scheduler's clock).
  /// `components` is 128-bit arithmetic, taken once: the scheduler reads its clock on every
  /// slot taken and freed.
  package var inSeconds: Double {
    let (seconds, attoseconds) = components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}
