/// The daemon's counters (`GET /v1/stats`): jobs by state, the total rate, and the id of the
/// newest event, from which `DaemonClient.events(since:)` can start.
public struct DaemonStats: Sendable, Hashable, Decodable {
  public var active: Int
  public var waiting: Int
  public var paused: Int
  /// Bytes per second over every active job.
  public var rate: Double
  /// The newest event's id; `nil` before the first event.
  public var lastEventID: Int64?

  private enum CodingKeys: String, CodingKey {
    case active, waiting, paused, rate
    case lastEventID = "last_event_id"
  }
}
