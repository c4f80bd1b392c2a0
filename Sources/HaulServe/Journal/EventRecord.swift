/// One event of the daemon's event log: a row of the `events` table, replayed to a client
/// that reconnects with `Last-Event-ID` (docs/service.md, "Events").
public struct EventRecord: Sendable, Equatable {
  /// The event's id, given by the daemon: larger than every id before it, across restarts.
  public var id: Int64
  /// `job-added`, `job-ended`, `entry-done`, ...
  public var type: String
  /// The job the event concerns, if any: deleting the job deletes its events.
  public var job: String?
  /// The event's `data:` line, one JSON value's text.
  public var data: String
  /// When it happened, in Unix seconds.
  public var time: Double

  public init(id: Int64, type: String, job: String? = nil, data: String, time: Double) {
    self.id = id
    self.type = type
    self.job = job
    self.data = data
    self.time = time
  }
}
