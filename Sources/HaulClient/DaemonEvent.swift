import Foundation

/// One event of the daemon's stream (docs/service.md, "Events").
///
/// `type` and `data` are as the daemon sent them; the typed views (`job`, `entry`, `progress`,
/// `gap`) are decoded once, on the stream's thread, for the event types that carry them, and
/// are `nil` for other types or when the data does not decode (`data` still holds it).
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
  public var job: Job?
  /// The entry, for `entry-*` events.
  public var entry: EntryEvent?
  /// The sample, for `progress` events.
  public var progress: JobProgress?
  /// The events missed, for `gap` events.
  public var gap: EventGap?

  /// An event with its typed view decoded from `data` by `type`.
  public init(id: Int64?, type: String, data: Data) {
    self.id = id
    self.type = type
    self.data = data
    let decoder = JSONDecoder()
    if type.hasPrefix("job-") {
      job = try? decoder.decode(Job.self, from: data)
    } else if type.hasPrefix("entry-") {
      entry = try? decoder.decode(EntryEvent.self, from: data)
    } else if type == "progress" {
      progress = try? decoder.decode(JobProgress.self, from: data)
    } else if type == "gap" {
      gap = try? decoder.decode(EventGap.self, from: data)
    }
  }
}
