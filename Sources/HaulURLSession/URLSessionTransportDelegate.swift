import Foundation
import HaulCore
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The one delegate of a transport's `URLSession`: routes each callback to the exchange of
/// its task, and reports when the session has been invalidated.
///
/// Threading: corelibs calls every method here on the session's delegate queue, an
/// `OperationQueue` with one operation at a time, in the order the events happened. The
/// table of exchanges is also touched by `perform` on other threads, hence the `Mutex`.
///
/// corelibs (this toolchain) calls only the session's delegate for data tasks; there is no
/// per-task delegate on that path, so exchanges are keyed by task identifier.
final class URLSessionTransportDelegate: NSObject, URLSessionDataDelegate, Sendable {
  private let exchanges = Mutex<[Int: URLSessionExchange]>([:])
  private let invalidation = Mutex<Invalidation>(Invalidation())
  /// Paces body chunks and upload progress to `--max-rate`, when one is set.
  private let rateLimiter: URLSessionRateLimiter?
  /// Where calls that wait for corelibs' work queue go (see `TaskControl`).
  private let control: TaskControl

  init(control: TaskControl, rateLimiter: URLSessionRateLimiter? = nil) {
    self.control = control
    self.rateLimiter = rateLimiter
  }

  private struct Invalidation {
    var done = false
    var waiters: [CheckedContinuation<Void, Never>] = []
  }

  /// Routes the callbacks of the task with `identifier` to `exchange` until it completes.
  func register(_ exchange: URLSessionExchange, for identifier: Int) {
    exchanges.withLock { $0[identifier] = exchange }
  }

  /// Waits until `urlSession(_:didBecomeInvalidWithError:)` has been called.
  func waitForInvalidation() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let done = invalidation.withLock { state in
        if !state.done { state.waiters.append(continuation) }
        return state.done
      }
      if done { continuation.resume() }
    }
  }

  private func exchange(of task: URLSessionTask) -> URLSessionExchange? {
    exchanges.withLock { $0[task.taskIdentifier] }
  }

  // MARK: URLSessionDataDelegate

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
  ) {
    exchange(of: dataTask)?.receive(response: response)
    // corelibs ignores the disposition; an unwanted body is stopped by cancelling the task.
    completionHandler(.allow)
  }

  /// Only chunks an exchange took are paced: after a stop (a cancel, a body past its size)
  /// libcurl goes on reading until corelibs' cancel reaches the work queue, and that cancel
  /// waits for the work queue, which waits for this queue. Pacing the dropped chunks would
  /// hold a SIGINT under `--max-rate` until the exit deadline.
  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    guard exchange(of: dataTask)?.receive(data: data) == true else { return }
    rateLimiter?.pace(data.count)
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
    totalBytesSent: Int64, totalBytesExpectedToSend: Int64
  ) {
    guard exchange(of: task)?.receive(sent: totalBytesSent) == true else { return }
    rateLimiter?.pace(Int(clamping: bytesSent))
  }

  /// libcurl sends a request again (a reused connection that closed before any answer) and
  /// rewinds its body: a body streamed from a file starts again from its first byte, which
  /// corelibs reads up to where libcurl asks. Called on the task's work queue.
  func urlSession(
    _ session: URLSession, task: URLSessionTask,
    needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
  ) {
    completionHandler(exchange(of: task)?.renewedBody())
  }

  /// haul follows redirects itself: answering `nil` makes corelibs deliver the 3xx as the
  /// final response (`_HTTPURLProtocol.didCompleteRedirectCallback`).
  func urlSession(
    _ session: URLSession, task: URLSessionTask,
    willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
    completionHandler: @escaping (URLRequest?) -> Void
  ) {
    completionHandler(nil)
  }

  /// corelibs raises a challenge for a 401 carrying `WWW-Authenticate`, after its body.
  /// haul handles credentials itself, so the challenge is declined and the 401 returned.
  /// Declining makes corelibs call `URLSessionTask.cancel()`, which waits for the work
  /// queue, so the answer goes through `TaskControl`: never on this queue (see
  /// `BoundedOperationQueue`), nor on the threads Swift's executor shares.
  func urlSession(
    _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
    completionHandler:
      @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) ->
      Void
  ) {
    exchange(of: task)?.declineChallenge()
    control.call { completionHandler(.cancelAuthenticationChallenge, nil) }
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
  ) {
    let exchange = exchanges.withLock { $0.removeValue(forKey: task.taskIdentifier) }
    exchange?.complete(error: error, response: task.response)
  }

  func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
    let waiters = invalidation.withLock { state in
      state.done = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }
}
