import Foundation

/// The event stream's thread: it opens `GET /v1/events`, parses the events as their bytes
/// arrive, queues them in the storage, and reconnects after a cut or a daemon restart with
/// `Last-Event-ID` set to the last event it queued.
///
/// Which failures end the stream and which are retried:
/// - before the daemon has once answered the stream, any failure ends it (no daemon, a wrong
///   token, a transport error), so a caller learns at once that the address is wrong;
/// - afterwards, a cut, a refused connection (the daemon restarting) and a 5xx answer are
///   retried, after `firstDelay` (or the stream's `retry:`), doubling up to `maxDelay` while
///   attempts bring no event;
/// - any other error answer (401 after a token changed, 404) ends it.
///
/// Threading: runs on a thread of its own (`EventStreamStorage.startReader`) and is touched
/// by no other; cancellation reaches it through the storage's `CallControl`.
final class EventStreamReader {
  /// The wait before the first reconnection: short, as the daemon is local.
  static let firstDelay = 0.1
  /// The longest wait between two attempts while the daemon is away.
  static let maxDelay = 2.0

  private let storage: EventStreamStorage
  private var parser: EventStreamParser

  init(storage: EventStreamStorage) {
    self.storage = storage
    parser = EventStreamParser(lastEventID: storage.since)
  }

  /// Reads until the stream is cancelled or fails for good, then tells the storage.
  func run() {
    var connected = false
    var delay = Self.firstDelay
    while true {
      var answered = false
      var delivered = false
      let outcome = connect(answered: &answered, delivered: &delivered)
      if answered { connected = true }
      switch outcome {
      case .failure(.cancelled):
        storage.finish(nil)
        return
      case .success(let response) where response.isSuccess:
        // The daemon ended the stream (a cut, or it is stopping): reconnect.
        connected = true
      case .success(let response):
        if !connected || !(500..<600).contains(response.status) {
          storage.finish(response.apiError)
          return
        }
      case .failure(let error):
        if !connected {
          storage.finish(error)
          return
        }
      }
      let base = parser.retryMilliseconds.map { Double($0) / 1000 } ?? Self.firstDelay
      if delivered { delay = base }
      guard storage.control.sleep(seconds: delay) else {
        storage.finish(nil)
        return
      }
      delay = min(delay * 2, max(Self.maxDelay, base))
    }
  }

  /// One connection: streams its events into the storage until it ends.
  private func connect(
    answered: inout Bool, delivered: inout Bool
  ) -> Result<DaemonResponse, DaemonError> {
    parser.reset()
    let call = CurlCall(
      address: storage.address,
      request: .events(after: parser.lastEventID, failuresOnly: storage.failuresOnly),
      control: storage.control)
    var sawAnswer = false
    var sawEvent = false
    // The events of one chunk go to the storage together: one lock and at most one wake
    // of the consumer per chunk, not per event.
    var chunk: [DaemonEvent] = []
    call.streamBody = { [self] bytes in
      sawAnswer = true
      _ = parser.feed(bytes) { event in
        chunk.append(DaemonEvent(id: event.id, type: event.type, data: event.data))
        return true
      }
      guard !chunk.isEmpty else { return true }
      sawEvent = true
      defer { chunk.removeAll(keepingCapacity: true) }
      return storage.push(chunk)
    }
    let result = call.perform()
    answered = sawAnswer
    delivered = sawEvent
    return result
  }
}

@available(*, unavailable)
extension EventStreamReader: Sendable {}
