/// A `progress` event: a sample of an active job's progress, sent at most twice a second per
/// job and never replayed (it has no event id).
public struct JobProgress: Sendable, Hashable, Decodable {
  /// The job's id.
  public var job: String
  /// Entries ended so far, of `total`.
  public var done: Int
  public var total: Int
  /// Bytes moved so far.
  public var bytes: Int64
  /// Bytes per second now.
  public var rate: Double
}
