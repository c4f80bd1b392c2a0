/// Taking and giving back the run's slots (`RunState`), one per attempt in flight.
extension EntryRunner {
  /// Waits for room to run one attempt against `host`; `false` when the run was cancelled.
  func acquireSlot(host: Int) async -> Bool {
    await state.acquireSlot(host: host)
  }

  /// Frees a slot taken for `host`, first noting how the host answered: `status` (a 429 or
  /// 503 makes haul polite to it) or, without one, whether it sent a response head at all
  /// (`answered`: it was reachable in this run, so a later refusal is an outage to wait
  /// out). Noting before freeing means a 429/503 lowers the host's limit before the freed
  /// slot can start another request there. The host is held for its `Retry-After`, capped
  /// as the entries' own delays are.
  func releaseSlot(
    host: Int, status: Int? = nil, retryAfter: Double? = nil, answered: Bool = false
  ) {
    dispatch(
      state.release(host: host, status: status, retryAfter: retryAfter, answered: answered))
  }
}
