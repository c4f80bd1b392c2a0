import HaulCore

/// What the daemon needs of the engine that moves a job's bytes: the check of a job before
/// it is accepted, and its run. The CLI provides it (`haul serve` builds the same transport,
/// options and scheduler as `haul run`), so the service names no transport.
public protocol JobEngine: Sendable {
  /// Checks `job`'s options and its whole manifest, as `haul run` does before any transfer;
  /// returns what the manifest holds. A bad line throws `.manifest` naming its line.
  func check(_ job: JobSpec) throws(ServiceError) -> ManifestStatistics

  /// Runs every entry of `job`, handing each event to `events` (one call at a time, quick),
  /// until every entry ended or `control` is stopped; returns the run's summary. A stopped
  /// run's transfers end keeping their partial files, and its summary is `cancelled`.
  func run(
    _ job: JobSpec, control: JobControl, events: @escaping @Sendable (TransferEvent) -> Void
  ) async -> RunSummary
}

/// A job as the engine runs it.
public struct JobSpec: Sendable, Equatable {
  public var id: String
  /// The job's manifest, a file in the daemon's state directory.
  public var manifestPath: String
  /// The output directory, resolved inside one of the daemon's roots.
  public var output: String
  /// The job's options by their `haul run` names (`max-rate`, `header`…).
  public var options: JobOptions
  /// What the manifest held when the job was checked, for a run: the manifest is the
  /// daemon's own copy and never changes, so a run need not read it twice. `nil` before
  /// the check.
  public var statistics: ManifestStatistics?

  public init(
    id: String, manifestPath: String, output: String, options: JobOptions,
    statistics: ManifestStatistics? = nil
  ) {
    self.id = id
    self.manifestPath = manifestPath
    self.output = output
    self.options = options
    self.statistics = statistics
  }
}
