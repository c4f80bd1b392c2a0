internal import CCurl
import Foundation
import HaulCore
import Synchronization

/// The libcurl transport: one multi handle, driven by its own thread, shared by every
/// exchange so connections (and HTTP/2 streams, over TLS) are reused.
///
/// Threading: `perform` may be called from any task; it posts the exchange to the loop
/// thread and suspends until the loop finishes it. Sinks are called on the loop thread.
///
/// Cancellation: cancelling the task that awaits `perform` makes the loop remove the
/// exchange from libcurl at once; `perform` then throws `cancelled`.
///
/// Lifetime: call `shutdown()` once, after the last `perform` returned; it stops the loop
/// thread and frees every libcurl resource. Nothing is cleaned up in `deinit`.
///
/// Rate cap: with `TransportOptions.maxBytesPerSecond`, every body byte in either direction
/// is charged to one `TokenBucket`; an exchange in debt is paused inside libcurl (not by
/// sleeping the thread) and resumed when the debt is paid.
///
/// Choices beyond the `Transport` contract: proxy environment variables are ignored
/// (`CURLOPT_PROXY` is empty), so every transfer goes straight to its server; a POST body
/// is sent as `application/octet-stream` unless the request names a `Content-Type`; a
/// single response header line over libcurl's 100 KiB limit fails with `protocol` too.
public final class CurlTransport: Transport, EngineTransport {
  public var name: String { "curl" }

  private let mailbox: CurlMailbox
  private let thread: Mutex<pthread_t?>
  private let maxHeaderBytes: Int

  /// Creates the multi handle and starts the loop thread.
  ///
  /// - SeeAlso: `CURLMOPT_MAX_TOTAL_CONNECTIONS`, `CURLMOPT_MAX_HOST_CONNECTIONS`.
  public init(options: TransportOptions = .init()) {
    precondition(curlGlobalInitialization == CURLE_OK, "curl_global_init failed")
    guard let multi = curl_multi_init() else { fatalError("curl_multi_init failed: out of memory") }
    _ = haul_multi_setopt_long(
      multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, max(1, options.maxConnections))
    _ = haul_multi_setopt_long(
      multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, options.maxConnectionsPerHost))
    let settings = CurlSettings(
      extraCACertificates: options.extraCACertificates, systemCAPath: Self.systemCAPath)
    mailbox = CurlMailbox(multi: multi)
    maxHeaderBytes = options.maxHeaderBytes
    let loop = CurlLoop(
      multi: multi, mailbox: mailbox, settings: settings,
      maxIdleHandles: max(1, options.maxConnections), maxHeaderBytes: options.maxHeaderBytes,
      maxBytesPerSecond: options.maxBytesPerSecond)
    // The loop moves to its thread here; this thread keeps no reference to it.
    var handle = pthread_t()
    let created = pthread_create(
      &handle, nil, curlLoopThreadMain, Unmanaged.passRetained(loop).toOpaque())
    precondition(created == 0, "cannot start the curl loop thread: error \(created)")
    thread = Mutex(handle)
  }

  public func perform(_ request: TransferRequest, sink: any ResponseSink)
    async throws(TransferError)
    -> TransferResponse
  {
    let exchange = try CurlExchange(request: request, sink: sink, maxHeaderBytes: maxHeaderBytes)
    let mailbox = self.mailbox
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        exchange.continuation = continuation
        if !mailbox.post(.add(exchange)) {
          _ = exchange.complete(.failure(TransferError(.cancelled, "the transport was shut down")))
        }
      }
    } onCancel: {
      _ = mailbox.post(.cancel(exchange))
    }
    return try result.get()
  }

  package func start(_ jobs: [any TransportJob]) {
    _ = mailbox.post(.jobs(jobs))
  }

  package func cancelJobs() {
    _ = mailbox.post(.cancelJobs)
  }

  public func shutdown() async {
    let mailbox = self.mailbox
    await withCheckedContinuation { continuation in
      if !mailbox.post(.shutdown(continuation)) { continuation.resume() }
    }
    // The loop resumed us as its last act, so this join returns at once.
    if let handle = thread.withLock({ $0.take() }) {
      pthread_join(handle, nil)
    }
  }

  /// The system CA directory libcurl was built with (Debian: `/etc/ssl/certs`).
  private static var systemCAPath: String {
    if let info = haul_curl_version_info_now(), let path = info.pointee.capath {
      return String(cString: path)
    }
    return "/etc/ssl/certs"
  }
}

/// `curl_global_init`, run once per process, the first time a transport is created.
private let curlGlobalInitialization: CURLcode = curl_global_init(Int(CURL_GLOBAL_ALL))

/// The loop thread's entry point; `argument` is a retained `CurlLoop`.
private func curlLoopThreadMain(_ argument: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
  guard let argument else { return nil }
  let loop = Unmanaged<CurlLoop>.fromOpaque(argument).takeRetainedValue()
  loop.run()
  return nil
}
