import Synchronization

/// The stop switch of one job's run, shared by the daemon (which stops it when the job is
/// paused or cancelled, or the daemon shuts down) and the engine (which says what stopping
/// does, once its scheduler exists). Stopping before the engine registered its action runs
/// the action as soon as it is registered.
public final class JobControl: Sendable {
  private struct State {
    var stopped = false
    var action: (@Sendable () -> Void)?
  }
  private let state = Mutex(State())

  public init() {}

  /// Whether the run was asked to stop.
  public var isStopped: Bool { state.withLock { $0.stopped } }

  /// Asks the run to stop; idempotent.
  public func stop() {
    let action: (@Sendable () -> Void)? = state.withLock { state in
      guard !state.stopped else { return nil }
      state.stopped = true
      return state.action
    }
    action?()
  }

  /// What stopping does; run at once when the run was already asked to stop.
  public func onStop(_ action: @escaping @Sendable () -> Void) {
    let now = state.withLock { state in
      state.action = action
      return state.stopped
    }
    if now { action() }
  }
}
