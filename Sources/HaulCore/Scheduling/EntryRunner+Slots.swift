/// Taking and giving back the run's slots (`RunState`), one per attempt in flight.
extension EntryRunner {
  /// Waits for room to run one attempt against `host`; `false` when the run was cancelled.
  func acquireSlot(host: Int) async -> Bool {
    await state.acquireSlot(host: host)
  }

  /// Frees a slot taken for `host`, first noting how the host answered (`release`): its
  /// status (a 429 or 503 makes haul polite to it) or, without one, whether it sent a
  /// response head at all (it was reachable in this run, so a later refusal is an outage to
  /// wait out). Noting before freeing means a 429/503 lowers the host's limit before the
  /// freed slot can start another request there. The host is held for its `Retry-After`,
  /// capped as the entries' own delays are. Every slot of the run is given back here.
  func releaseSlot(host: Int, _ release: SlotRelease = .plain) {
    dispatch(
      state.release(
        host: host, status: release.status, retryAfter: release.retryAfter,
        answered: release.answered))
  }

  /// Notes how `host` carried an exchange: one answered over HTTP/2 lets the host's limit
  /// count streams from then on (`AdmissionState.ceiling(for:)`), and its times feed the
  /// summary and `-j auto`.
  func note(_ result: Result<TransferResponse, TransferError>, host: Int) {
    guard case .success(let response) = result else { return }
    if response.head.multiplexed { noteMultiplexed(host: host) }
    if let timing = response.timing { dispatch(state.answered(timing)) }
  }

  /// Notes that `host` carries exchanges as streams of a shared connection (HTTP/2), told by
  /// an answer or, on the engine, by the connection itself (`TransportJob.connectionMultiplexes`),
  /// which also tells how long its TLS `handshake` took.
  func noteMultiplexed(host: Int, handshake: Double? = nil) {
    dispatch(state.noteMultiplexed(host: host, handshake: handshake))
  }
}
