import Foundation

/// One event of the daemon's stream (docs/service.md, "Events").
///
/// `type` and `data` are as the daemon sent them; the typed views (`job`, `entry`, `progress`,
/// `gap`) are decoded from `data` when read, for the event types that carry them, and are
/// `nil` for other types or when the data does not decode (`data` still holds it). A reader
/// that follows one job among thousands of entries decodes only what it looks at.
public struct DaemonEvent: Sendable, Hashable {
  /// The event's id: increasing, also across daemon restarts; `nil` for `progress` samples,
  /// which are not history.
  public var id: Int64?
  /// `job-added`, `job-started`, `job-paused`, `job-resumed`, `job-ended`, `entry-started`,
  /// `entry-done`, `entry-failed`, `progress`, `gap`, or a type a later daemon adds.
  public var type: String
  /// The event's JSON, as it came.
  public var data: Data

  /// The job, for `job-*` events.
  public var job: Job? { type.hasPrefix("job-") ? decoded(Job.self) : nil }
  /// The entry, for `entry-*` events.
  public var entry: EntryEvent? { type.hasPrefix("entry-") ? decoded(EntryEvent.self) : nil }
  /// The sample, for `progress` events.
  public var progress: JobProgress? { type == "progress" ? decoded(JobProgress.self) : nil }
  /// The events missed, for `gap` events.
  public var gap: EventGap? { type == "gap" ? decoded(EventGap.self) : nil }

  public init(id: Int64?, type: String, data: Data) {
    self.id = id
    self.type = type
    self.data = data
  }

  private func decoded<View: Decodable>(_ type: View.Type) -> View? {
    try? JSONDecoder().decode(type, from: data)
  }
}
