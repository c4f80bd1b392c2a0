/// What an `entry-started`, `entry-done` or `entry-failed` event says about one entry.
public struct EntryEvent: Sendable, Hashable, Decodable {
  /// The job's id.
  public var job: String
  /// The entry's manifest line number.
  public var line: Int
  public var path: String
  /// `entry-done` only: `ok` or `skipped`.
  public var status: EntryStatus?
  /// `entry-done` only: bytes moved.
  public var bytes: Int64?
  /// `entry-failed` only: the stable error code and the human message.
  public var code: String?
  public var message: String?
}
