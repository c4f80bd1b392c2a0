extension Duration {
  /// The duration in seconds, as a `Double` (reports, rates, the scheduler's clock).
  public var inSeconds: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}
