import Foundation
import HaulCore
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One `perform` in flight: the sink it feeds, its URLSession task, and how it ends.
///
/// Threading: the `receive…` methods, `complete` and `finish` run on the session's serial
/// delegate queue. That queue is the only place the sink is called and, once the task has
/// started, the only place the continuation is resumed, so the sink is never called after
/// `perform` has returned. `start` and `cancel` run on the caller's threads, and hand what
/// waits for corelibs' work queue (creating, resuming and cancelling the task) to
/// `TaskControl`. Mutable state sits behind a `Mutex`; the sink and the task are called
/// outside it.
///
/// Body chunks reach the delegate queue asynchronously, so after a stop the queue may still
/// hold some (at most `BoundedOperationQueue.capacity` callbacks): they are dropped unread.
final class URLSessionExchange: Sendable {
  typealias Verdict = Result<TransferResponse, TransferError>
  typealias Continuation = CheckedContinuation<Verdict, Never>

  /// Why haul stopped the task itself.
  enum Stop: Sendable {
    /// The sink declined the body; the head is the answer.
    case bodyUnwanted
    /// The sink threw, or the response broke a rule; this error is the answer.
    case failed(TransferError)
    /// corelibs asked for credentials after a 401; the 401 head is the answer.
    case challengeDeclined
    /// The calling task was cancelled.
    case callerCancelled
  }

  private struct State {
    /// Set once created (see `start`); `nil` before, or if the exchange stopped first.
    var task: URLSessionTask?
    var continuation: Continuation?
    var verdict: Verdict?
    var head: ResponseHead?
    var wantsBody = false
    var bodyBytes: Int64 = 0
    var sentBytes: Int64 = 0
    var stop: Stop?
    /// The body streamed from its file, when the request has one (the last, after a re-send).
    var body: URLSessionFileBody?
    /// When the task was resumed and when its head arrived, for `TransferTiming`.
    var resumed: ContinuousClock.Instant?
    var headArrived: ContinuousClock.Instant?
  }

  private let sink: any ResponseSink
  private let maxHeaderBytes: Int
  private let delegateQueue: BoundedOperationQueue
  private let state = Mutex(State())

  init(sink: any ResponseSink, maxHeaderBytes: Int, delegateQueue: BoundedOperationQueue) {
    self.sink = sink
    self.maxHeaderBytes = maxHeaderBytes
    self.delegateQueue = delegateQueue
  }

  /// Creates the task with `make` and resumes it, away from the caller (see `TaskControl`);
  /// answers at once when the exchange was cancelled before it began, and with `make`'s
  /// error when it throws.
  func start(
    _ continuation: Continuation,
    making make: @escaping @Sendable () throws(TransferError) -> URLSessionTask
  ) {
    let early: Verdict? = state.withLock { state in
      if let verdict = state.verdict { return verdict }
      state.continuation = continuation
      return nil
    }
    if let early {
      continuation.resume(returning: early)
      return
    }
    delegateQueue.control.call { [self] in
      // A stop before this point has queued the verdict, and no task is needed.
      guard !isStopped else { return }
      let task: URLSessionTask
      do throws(TransferError) {
        task = try make()
      } catch {
        finish(.failure(error))
        return
      }
      let stoppedMeanwhile = state.withLock { state in
        state.task = task
        state.resumed = .now
        return state.stop != nil
      }
      // A task never resumed must still end, or the session's invalidation waits for it.
      if stoppedMeanwhile { task.cancel() } else { task.resume() }
    }
  }

  /// Stops the exchange because the caller was cancelled. Any thread; returns at once.
  ///
  /// Cancels the task and queues the `cancelled` verdict behind whatever the delegate queue
  /// already holds, so the answer comes promptly (stale chunks are dropped, not written) and
  /// still after the last sink call.
  func cancel() {
    guard stop(.callerCancelled) else { return }
    delegateQueue.addUnboundedOperation { [self] in
      finish(.failure(TransferError(.cancelled, "cancelled")))
    }
  }

  /// The request streams `body` from its file (see `URLSessionTransport.makeTask`).
  func send(_ body: URLSessionFileBody) {
    state.withLock { $0.body = body }
  }

  /// The body from its first byte again, for libcurl sending the request once more; `nil`
  /// when the request has no body streamed from a file (corelibs stops the process if given
  /// a stream for a body it holds in memory). Runs on the task's work queue.
  func renewedBody() -> InputStream? {
    let body: URLSessionFileBody? = state.withLock { state in
      guard let body = state.body?.reopened() else { return nil }
      state.body = body
      return body
    }
    return body?.stream
  }

  // MARK: Delegate queue

  /// The response head arrived (for a redirect: once its body has, as corelibs holds 3xx
  /// heads back until the transfer ends).
  func receive(response: URLResponse) {
    guard let response = response as? HTTPURLResponse else { return }
    deliver(ResponseHead(response))
  }

  /// A chunk of the body arrived. Returns whether it was taken (handed to the sink): a
  /// chunk of a stopped exchange, or of a body nobody wants, is dropped, and must not be
  /// paced by `--max-rate` either (see `URLSessionTransportDelegate`).
  @discardableResult
  func receive(data: Data) -> Bool {
    let wanted = state.withLock { $0.stop == nil && $0.verdict == nil && $0.wantsBody }
    guard wanted else { return false }
    var failure: TransferError?
    data.withUnsafeBytes { bytes in
      do throws(TransferError) {
        try sink.receive(body: bytes)
      } catch {
        failure = error
      }
    }
    if let failure {
      stop(.failed(failure))
      return false
    }
    state.withLock { $0.bodyBytes += Int64(data.count) }
    return true
  }

  /// Part of the request body went out; `total` counts every byte sent so far. Returns
  /// whether the exchange is still live (a stopped one is not paced).
  @discardableResult
  func receive(sent total: Int64) -> Bool {
    let live = state.withLock { state in
      guard state.stop == nil, state.verdict == nil else { return false }
      state.sentBytes = total
      return true
    }
    if live { sink.sent(totalBytes: total) }
    return live
  }

  /// corelibs is about to answer a 401 with a credential challenge; haul declines it, and
  /// corelibs cancels the task.
  func declineChallenge() {
    state.withLock { state in
      if state.stop == nil { state.stop = .challengeDeclined }
    }
  }

  /// The task ended, with `error` or cleanly; `response` is the task's last response.
  func complete(error: (any Error)?, response: URLResponse?) {
    if error == nil, let response = response as? HTTPURLResponse,
      state.withLock({ $0.head == nil })
    {
      // A 3xx that corelibs could not turn into a redirect (no usable Location): its head
      // never went through `didReceive response`, and its body was kept back.
      deliver(ResponseHead(response))
      let withheld = state.withLock { $0.wantsBody && ($0.head?.contentLength ?? 0) > 0 }
      if withheld {
        stop(.failed(TransferError(.protocol, "URLSession withheld the body of this response")))
      }
    }
    finish(verdict(error: error))
  }

  /// Answers the caller, once; later calls do nothing.
  func finish(_ verdict: Verdict) {
    let continuation: Continuation? = state.withLock { state in
      guard state.verdict == nil else { return nil }
      state.verdict = verdict
      state.body?.close()
      defer { state.continuation = nil }
      return state.continuation
    }
    continuation?.resume(returning: verdict)
  }

  // MARK: Internals

  private var isStopped: Bool { state.withLock { $0.stop != nil } }

  /// Records why the exchange stops and cancels the task; `false` if it had already stopped
  /// or finished.
  ///
  /// `URLSessionTask.cancel()` may wait for the session's work queue, which may itself be
  /// waiting for the delegate queue (`BoundedOperationQueue`) or kept busy by a flood of
  /// body chunks, so it runs elsewhere (`TaskControl`). A task not yet created is cancelled
  /// by `start`, which sees the stop.
  @discardableResult
  private func stop(_ reason: Stop) -> Bool {
    let (first, task) = state.withLock { state -> (Bool, URLSessionTask?) in
      guard state.stop == nil, state.verdict == nil else { return (false, nil) }
      state.stop = reason
      return (true, state.task)
    }
    if let task { delegateQueue.control.cancel(task) }
    return first
  }

  private func deliver(_ head: ResponseHead) {
    let fresh = state.withLock { state in
      guard state.stop == nil, state.verdict == nil, state.head == nil else { return false }
      state.head = head
      state.headArrived = .now
      return true
    }
    guard fresh else { return }
    if let problem = head.framingProblem {
      stop(.failed(problem))
      return
    }
    if head.value(for: "Trailer") != nil {
      // libcurl hands trailer fields to corelibs' header callback after the body; corelibs
      // starts a new head with them and, at the end of the transfer, finds no response and
      // stops the process (NativeProtocol.swift:240 in 6.3). Cancelled here, the task never
      // reaches that end.
      stop(
        .failed(
          TransferError(
            .protocol,
            "the response announces trailer fields, which URLSession on Linux cannot read"
              + " (corelibs would stop the process); the curl transport can")))
      return
    }
    if (100..<200).contains(head.status) {
      // corelibs ends the head at the first blank line, so an interim response (103 Early
      // Hints, an unasked-for 100 Continue) passes for the final one and the real head is lost.
      stop(
        .failed(
          TransferError(
            .protocol,
            "URLSession took an interim \(head.status) response for the final one")))
      return
    }
    if head.wireSize > maxHeaderBytes {
      stop(
        .failed(
          TransferError(
            .protocol,
            "response header block of about \(head.wireSize) bytes is over the "
              + "\(maxHeaderBytes)-byte limit")))
      return
    }
    let wanted: Bool
    do throws(TransferError) {
      wanted = try sink.receive(head: head)
    } catch {
      stop(.failed(error))
      return
    }
    guard wanted else {
      stop(.bodyUnwanted)
      return
    }
    if head.hasContentCoding {
      stop(
        .failed(
          TransferError(
            .protocol,
            "the server sent a content-coded body (Content-Encoding) although identity was "
              + "asked for; URLSession decodes it and cannot deliver the exact bytes")))
      return
    }
    state.withLock { $0.wantsBody = true }
  }

  /// corelibs tells neither when a connection was ready nor whether it was new, so the
  /// times count from the task's resumption.
  private static func timing(of state: State) -> TransferTiming? {
    guard let resumed = state.resumed, let headArrived = state.headArrived else { return nil }
    return TransferTiming(
      waited: 0, firstByte: (headArrived - resumed).inSeconds,
      answer: (.now - resumed).inSeconds, openedConnection: nil)
  }

  private func verdict(error: (any Error)?) -> Verdict {
    let (head, wantsBody, bodyBytes, sentBytes, stop, timing, body) = state.withLock {
      ($0.head, $0.wantsBody, $0.bodyBytes, $0.sentBytes, $0.stop, Self.timing(of: $0), $0.body)
    }
    func answer(_ head: ResponseHead) -> Verdict {
      .success(
        TransferResponse(
          head: head, bodyBytes: bodyBytes, sentBytes: sentBytes, timing: timing))
    }
    switch stop {
    case .failed(let failure):
      return .failure(failure)
    case .callerCancelled:
      return .failure(TransferError(.cancelled, "cancelled"))
    case .bodyUnwanted, .challengeDeclined:
      if let head { return answer(head) }
    case nil:
      break
    }
    let expected = wantsBody ? head?.contentLength : nil
    if error != nil, let failure = body?.failure {
      // The body's file could not be read to its end, and corelibs gave up on the transfer.
      return .failure(failure)
    }
    if let error {
      if head == nil, TransferError.isLibcurlOutOfMemory(error) {
        return .failure(.headerLineTooLong)
      }
      var failure = TransferError(urlSessionError: error)
      if failure.code == .protocol, let expected, bodyBytes < expected {
        failure.message = "body ended after \(bodyBytes) of \(expected) bytes: \(failure.message)"
      }
      return .failure(failure)
    }
    guard let head else {
      return .failure(TransferError(.protocol, "URLSession finished without a response head"))
    }
    if let expected, bodyBytes != expected {
      return .failure(
        TransferError(.protocol, "body ended after \(bodyBytes) of \(expected) bytes"))
    }
    return answer(head)
  }
}
