/// A `gap` event: the daemon no longer holds the events after `after` and before `oldest`,
/// so a client that resumed from `after` missed them (re-read the jobs to catch up).
public struct EventGap: Sendable, Hashable, Decodable {
  public var after: Int64
  public var oldest: Int64
}
