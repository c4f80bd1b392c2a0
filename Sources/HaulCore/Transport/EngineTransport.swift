/// A transport that can carry whole transfers on its own thread: the scheduler hands it
/// jobs, and each job drives its exchanges through synchronous calls on that thread, with
/// no task, actor hop or thread wake-up per transfer (`CurlTransport` is one).
///
/// The scheduler uses it for the common case (an entry's first attempt) and falls back to
/// `Transport.perform` from a task for everything that must wait (a retry's back-off, a
/// credential refresh); both paths give the same results.
package protocol EngineTransport: Transport {
  /// Starts `jobs` on the transport's thread, in order. May be called from any thread,
  /// including that thread itself (from inside a job's call).
  func start(_ jobs: [any TransportJob])

  /// Ends every exchange of a job in flight with `cancelled` (the run was interrupted); the
  /// job is told through `exchangeEnded`. Jobs started afterwards still begin.
  func cancelJobs()
}

/// One transfer an `EngineTransport` carries on its thread from start to end.
///
/// Threading: both methods are called on the transport's thread, one call at a time; a job
/// may do blocking file work in them (open, write, rename) but must not wait for anything
/// else. Whatever it hands to other threads it must make safe itself.
package protocol TransportJob: AnyObject, Sendable {
  /// Called once when the job starts: its first exchange, or `.done` when it ended without
  /// one (the run was cancelled, its file could not be opened).
  func begin() -> JobStep

  /// Called when the exchange the last step asked for ended: the next exchange (a redirect
  /// hop, a fresh start), or `.done`.
  func exchangeEnded(_ result: Result<TransferResponse, TransferError>) -> JobStep

  /// Called before the request of the job's exchange goes out, when that exchange opened a
  /// connection that carries several exchanges at once (HTTP/2, agreed while connecting):
  /// its host may take more at once from now on, a round trip before the answer would say
  /// so. `handshake`: the seconds the connection's TLS handshake took, which tell whether
  /// the server is far away. A transport that cannot tell never calls it.
  func connectionMultiplexes(handshake: Double)
}

extension TransportJob {
  package func connectionMultiplexes(handshake: Double) {}
}

/// What a job asks its transport to do next.
package enum JobStep {
  /// Perform this exchange, delivering the response to `sink`.
  case send(TransferRequest, any ResponseSink)
  /// The job needs nothing more from the transport.
  case done
}
