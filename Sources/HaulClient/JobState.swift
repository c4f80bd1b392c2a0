/// Where a job stands (docs/service.md, "Jobs").
///
/// A struct over the daemon's text rather than an enum, so a state a later daemon adds
/// decodes too (compare with the constants; an unknown one keeps its `rawValue`).
public struct JobState: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
  public let rawValue: String

  public init(rawValue: String) { self.rawValue = rawValue }

  /// Queued; starts when the jobs before it have ended or been paused.
  public static let waiting = JobState(rawValue: "waiting")
  /// Its entries are running.
  public static let active = JobState(rawValue: "active")
  /// Stopped by the user; its running transfers ended keeping their partial files.
  public static let paused = JobState(rawValue: "paused")
  /// Every entry succeeded or was already complete.
  public static let complete = JobState(rawValue: "complete")
  /// Every entry ended and at least one failed after its retries.
  public static let error = JobState(rawValue: "error")
  /// Cancelled.
  public static let removed = JobState(rawValue: "removed")

  /// Whether the job has ended (`complete`, `error` or `removed`): it will not run again,
  /// and `DaemonClient.forget` may drop it.
  public var isEnded: Bool { self == .complete || self == .error || self == .removed }

  public init(from decoder: any Decoder) throws {
    rawValue = try decoder.singleValueContainer().decode(String.self)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }

  public var description: String { rawValue }
}
