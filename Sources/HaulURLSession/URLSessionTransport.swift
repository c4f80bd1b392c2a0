import Foundation
import HaulCore
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A `Transport` on FoundationNetworking's `URLSession` (on Linux: swift-corelibs-foundation,
/// itself built on libcurl's multi-socket interface).
///
/// One ephemeral session per transport: no cookies, no cache, no credential store. Each
/// `perform` is one data task, its body (if any) streamed from the body's file or sent from
/// memory; redirects and 401s come back as responses. Two additions make corelibs fit the
/// `Transport` contract: `BoundedOperationQueue` gives it back-pressure (corelibs has none),
/// and `HostGate` holds requests beyond `maxConnectionsPerHost` before their task exists
/// (corelibs' idle timer would otherwise expire while libcurl queues them).
///
/// What URLSession on Linux cannot do, and therefore this transport does not: trust extra
/// CA certificates (`extraCACertificates` is not applied; only the system store is
/// trusted); refuse a content coding the server sends unasked (libcurl decodes it, so such a
/// body fails with `protocol`); report header order or keep repeated fields apart; time the
/// connect phase apart from the stall timeout (whole seconds only); cap total connections;
/// apply `TransportOptions.proxyRules` (corelibs never applies `connectionProxyDictionary`;
/// its libcurl reads the proxy variables itself, by the rules `ProxyRules` follows, and the
/// CLI refuses what differs from them); stream a 3xx body (corelibs
/// buffers it whole before the head is seen); see an interim 1xx head apart from the final
/// one (fails with `protocol`).
///
/// Cancellation: cancelling the calling task cancels the URLSession task, and `perform`
/// throws `cancelled` promptly, after the last sink call.
public final class URLSessionTransport: Transport {
  public let name = "urlsession"

  /// Whether this transport can reach a host written as an IPv6 literal (`http://[::1]/`):
  /// it cannot, since corelibs fails such a URL with error -1000 (`badURL`), as a plain
  /// `URLSession.shared` program does. Callers refuse such URLs before a run
  /// (`Manifest.refusesIPv6Literals`).
  public static let reachesIPv6Literals = false

  /// Whether this transport can trust CA certificates besides the system's
  /// (`TransportOptions.extraCACertificates`): it cannot, since corelibs on Linux reads no CA
  /// setting of its own (only on Android) and sets `CURLOPT_CAINFO` only when libcurl has no
  /// default bundle, which Debian's has. Callers refuse `--cacert` with this transport.
  public static let trustsExtraCACertificates = false

  private let options: TransportOptions
  private let session: URLSession
  private let delegate: URLSessionTransportDelegate
  private let delegateQueue: BoundedOperationQueue
  private let isShutDown = Mutex(false)
  private let hostGate: HostGate

  /// Creates the transport and its session.
  ///
  /// - Parameter options: `maxConnectionsPerHost` (per host name and port) and
  ///   `maxHeaderBytes` are enforced; `maxBytesPerSecond` paces the delegate queue (see
  ///   `URLSessionRateLimiter`); `maxConnections` is left to the scheduler (corelibs
  ///   never sets `CURLMOPT_MAX_TOTAL_CONNECTIONS`); `extraCACertificates` cannot be applied
  ///   (a TLS failure says so).
  public init(options: TransportOptions = .init()) {
    self.options = options
    hostGate = HostGate(limit: options.maxConnectionsPerHost)
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpCookieStorage = nil
    configuration.httpShouldSetCookies = false
    configuration.httpCookieAcceptPolicy = .never
    configuration.urlCache = nil
    configuration.urlCredentialStorage = nil
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.httpMaximumConnectionsPerHost = max(1, options.maxConnectionsPerHost)
    // Every request sets its own stall timeout (`URLRequest(transfer:)`); this one is unused.
    configuration.timeoutIntervalForRequest = 30
    let queue = BoundedOperationQueue()
    queue.name = "haul.urlsession.delegate"
    delegateQueue = queue
    delegate = URLSessionTransportDelegate(
      control: queue.control,
      rateLimiter: options.maxBytesPerSecond.map(URLSessionRateLimiter.init(bytesPerSecond:)))
    session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
  }

  /// Performs one exchange (see `Transport.perform`). Waits first while the host already
  /// has `maxConnectionsPerHost` exchanges in flight. Throws `cancelled` after `shutdown()`
  /// (corelibs would stop the process on a task for an invalidated session).
  public func perform(_ request: TransferRequest, sink: any ResponseSink)
    async throws(TransferError) -> TransferResponse
  {
    if isShutDown.withLock({ $0 }) {
      throw TransferError(.cancelled, "the transport has been shut down")
    }
    let host = HostGate.key(for: request.url)
    guard await hostGate.enter(host) else { throw TransferError(.cancelled, "cancelled") }
    defer { hostGate.leave(host) }
    if Task.isCancelled { throw TransferError(.cancelled, "cancelled") }
    let exchange = URLSessionExchange(
      sink: sink, maxHeaderBytes: options.maxHeaderBytes, delegateQueue: delegateQueue)
    let verdict = await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        exchange.start(continuation) { [self] () throws(TransferError) -> URLSessionTask in
          let task = try makeTask(for: request, exchange)
          delegate.register(exchange, for: task.taskIdentifier)
          return task
        }
      }
    } onCancel: {
      exchange.cancel()
    }
    switch verdict {
    case .success(let response):
      return response
    case .failure(var error):
      if error.code == .tls, options.extraCACertificates != nil {
        error.message += " (the URLSession transport trusts only the system CA store)"
      }
      throw error
    }
  }

  /// Invalidates the session and waits until URLSession confirms it. Later calls return at once.
  public func shutdown() async {
    let first = isShutDown.withLock { done in
      defer { done = true }
      return !done
    }
    guard first else { return }
    session.finishTasksAndInvalidate()
    await delegate.waitForInvalidation()
  }

  /// A suspended task for `request`: a data task, with the body's bytes from memory or its
  /// file streamed (`URLSessionFileBody`, which `exchange` is told of).
  private func makeTask(for request: TransferRequest, _ exchange: URLSessionExchange)
    throws(TransferError) -> URLSessionTask
  {
    var urlRequest = URLRequest(transfer: request)
    switch request.body?.content {
    case nil:
      return session.dataTask(with: urlRequest)
    case .bytes(let bytes):
      return session.uploadTask(with: urlRequest, from: Data(bytes))
    case .file(let path, let offset, let length):
      let body = try URLSessionFileBody(path: path, offset: offset, length: length)
      urlRequest.streamingFileBody(body)
      exchange.send(body)
      return session.dataTask(with: urlRequest)
    }
  }
}
