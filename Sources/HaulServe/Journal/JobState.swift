/// The state of one of the daemon's jobs, spelled as the API and the journal spell it
/// (docs/service.md, "Jobs").
public enum JobState: String, Sendable, CaseIterable {
  /// Queued; starts when the jobs before it have ended or been paused.
  case waiting
  /// Its entries are running.
  case active
  /// Stopped by the user; its running transfers ended keeping their partial files.
  case paused
  /// Every entry succeeded or was already complete.
  case complete
  /// Every entry ended and at least one failed after its retries.
  case error
  /// Cancelled.
  case removed

  /// Whether the job has ended (`complete`, `error` or `removed`): it never runs again, and
  /// only an ended job can be forgotten.
  public var isEnded: Bool {
    switch self {
    case .complete, .error, .removed: true
    case .waiting, .active, .paused: false
    }
  }
}
