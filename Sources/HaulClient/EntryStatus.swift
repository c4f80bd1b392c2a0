/// How an entry of a job ended: `ok`, `skipped` or `failed`, as the report says.
///
/// Filters `DaemonClient.entries` and is read in `JobEntry` and `EntryEvent`. A struct over
/// the daemon's text, so a status a later daemon adds decodes too.
public struct EntryStatus: RawRepresentable, Sendable, Hashable, Codable,
  CustomStringConvertible
{
  public let rawValue: String

  public init(rawValue: String) { self.rawValue = rawValue }

  /// Transferred, or completed by this job.
  public static let ok = EntryStatus(rawValue: "ok")
  /// Already complete: nothing was moved.
  public static let skipped = EntryStatus(rawValue: "skipped")
  /// Failed after its retries.
  public static let failed = EntryStatus(rawValue: "failed")

  public init(from decoder: any Decoder) throws {
    rawValue = try decoder.singleValueContainer().decode(String.self)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }

  public var description: String { rawValue }
}
