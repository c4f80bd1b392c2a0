/// Runs a manifest's entries through a transport: at most `concurrency` at once and
/// `perHost` per host, skipping what is done, resuming partial files, retrying what is
/// transient, trying mirrors, verifying every byte, and reporting as it goes.
public actor Scheduler {
  let transport: any Transport
  let options: SchedulerOptions

  public init(transport: any Transport, options: SchedulerOptions) {
    self.transport = transport
    self.options = options
  }

  /// Runs every entry of `entries` (pulled one at a time, as slots free up) and returns the
  /// events of the run; the stream ends after the `summary` event.
  public nonisolated func run<Entries: Sequence<ManifestEntry> & Sendable>(_ entries: Entries)
    -> AsyncStream<TransferEvent>
  {
    fatalError("Scheduler.run is being written")
  }

  /// Stops starting new transfers; running ones end with `cancelled` and keep their partial
  /// data for the next run.
  public func cancel() {}
}
