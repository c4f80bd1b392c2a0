internal import CCurl
import Foundation
import HaulCore
import Synchronization

/// The libcurl transport: a multi handle driven by its own thread (or several, one per
/// loop: `TransportOptions.loops`), shared by the exchanges it runs so connections (and
/// HTTP/2 streams, over TLS) are reused.
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

  /// One mailbox per loop thread, in the order of `threads`.
  private let mailboxes: [CurlMailbox]
  /// Which loop carries which https origin, with more than one loop.
  private let routes: CurlRoutes?
  private let threads: [pthread_t]
  private let joined = Mutex(false)
  /// Where the next exchange or batch of jobs from outside the loops goes.
  private let nextLoop = Atomic<Int>(0)
  private let maxHeaderBytes: Int

  /// Creates the multi handles and starts the loop threads (`TransportOptions.loops`; one
  /// under `--max-rate`, whose one bucket a single loop charges).
  ///
  /// - SeeAlso: `CURLMOPT_MAX_TOTAL_CONNECTIONS`, `CURLMOPT_MAX_HOST_CONNECTIONS`.
  public init(options: TransportOptions = .init()) {
    precondition(curlGlobalInitialization == CURLE_OK, "curl_global_init failed")
    let count = options.maxBytesPerSecond == nil ? max(1, options.loops) : 1
    var settings = CurlSettings(
      proxyRules: options.proxyRules, extraCACertificates: options.extraCACertificates,
      systemCAPath: Self.systemCAPath)
    settings.systemCAsFromDirectory =
      Self.systemCADirectoryIsBuiltIn
      && access(settings.systemCAPath, R_OK | X_OK) == 0
    maxHeaderBytes = options.maxHeaderBytes
    var multis: [UnsafeMutableRawPointer] = []
    for _ in 0..<count {
      guard let multi = curl_multi_init() else {
        fatalError("curl_multi_init failed: out of memory")
      }
      _ = haul_multi_setopt_long(
        multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, max(1, options.maxConnections))
      _ = haul_multi_setopt_long(
        multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, options.maxConnectionsPerHost))
      multis.append(multi)
    }
    let mailboxes = multis.map { CurlMailbox(multi: $0) }
    let routes = count > 1 ? CurlRoutes(mailboxes: mailboxes) : nil
    var threads: [pthread_t] = []
    for (index, (multi, mailbox)) in zip(multis, mailboxes).enumerated() {
      // The loop is made on its thread, which owns it from then on.
      let start = CurlLoopStart {
        CurlLoop(
          multi: multi, mailbox: mailbox, index: index, routes: routes, settings: settings,
          maxIdleHandles: max(1, options.maxConnections),
          maxHeaderBytes: options.maxHeaderBytes, maxBytesPerSecond: options.maxBytesPerSecond)
      }
      var handle = pthread_t()
      let created = pthread_create(
        &handle, nil, curlLoopThreadMain, Unmanaged.passRetained(start).toOpaque())
      precondition(created == 0, "cannot start the curl loop thread: error \(created)")
      threads.append(handle)
    }
    self.mailboxes = mailboxes
    self.routes = routes
    self.threads = threads
  }

  /// The mailbox of the loop that carries `exchange`'s https origin, if one does
  /// (`CurlRoutes`), so that a task's exchange shares that loop's connections; else the
  /// caller's (`mailboxForCaller`). Called before the exchange is posted.
  private func mailbox(for exchange: CurlExchange) -> CurlMailbox {
    if let routes, let origin = exchange.httpsOrigin, let owner = routes.owner(of: origin) {
      return mailboxes[owner]
    }
    return mailboxForCaller()
  }

  /// The mailbox of the loop running on this thread, if it is one; else the first loop's.
  /// Exchanges from tasks (`perform`) all go to the first loop, so that one caller's
  /// requests to a host reuse one connection as with a single loop; only job batches are
  /// spread (`start`).
  private func mailboxForCaller() -> CurlMailbox {
    guard mailboxes.count > 1 else { return mailboxes[0] }
    let me = pthread_self()
    if let index = threads.firstIndex(where: { pthread_equal($0, me) != 0 }) {
      return mailboxes[index]
    }
    return mailboxes[0]
  }

  public func perform(_ request: TransferRequest, sink: any ResponseSink)
    async throws(TransferError)
    -> TransferResponse
  {
    let exchange = try CurlExchange(request: request, sink: sink, maxHeaderBytes: maxHeaderBytes)
    let mailbox = mailbox(for: exchange)
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

  /// Starts `jobs`: on the calling loop when a job's end asks for more (its slot freed
  /// there, so the work stays where the connection is), spread over the loops otherwise.
  package func start(_ jobs: [any TransportJob]) {
    guard mailboxes.count > 1, !threads.contains(where: { pthread_equal($0, pthread_self()) != 0 })
    else {
      _ = mailboxForCaller().post(.jobs(jobs))
      return
    }
    var shares = [[any TransportJob]](repeating: [], count: mailboxes.count)
    let first = nextLoop.add(jobs.count, ordering: .relaxed).newValue
    for (offset, job) in jobs.enumerated() {
      shares[(first + offset) % mailboxes.count].append(job)
    }
    for (mailbox, share) in zip(mailboxes, shares) where !share.isEmpty {
      _ = mailbox.post(.jobs(share))
    }
  }

  package func cancelJobs() {
    for mailbox in mailboxes { _ = mailbox.post(.cancelJobs) }
  }

  public func shutdown() async {
    for mailbox in mailboxes {
      await withCheckedContinuation { continuation in
        if !mailbox.post(.shutdown(continuation)) { continuation.resume() }
      }
    }
    // Each loop resumed us as its last act, so these joins return at once.
    guard
      joined.withLock({ done in
        defer { done = true }; return !done
      })
    else { return }
    for handle in threads { pthread_join(handle, nil) }
  }

  /// Whether libcurl was built with a CA directory of its own (`--with-ca-path`).
  private static var systemCADirectoryIsBuiltIn: Bool {
    haul_curl_version_info_now()?.pointee.capath != nil
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

/// What a loop thread makes its `CurlLoop` from, handed to it whole: the thread that calls
/// `make` owns the loop.
private final class CurlLoopStart {
  let make: () -> CurlLoop

  init(_ make: @escaping () -> CurlLoop) {
    self.make = make
  }
}

/// The loop thread's entry point; `argument` is a retained `CurlLoopStart`.
private func curlLoopThreadMain(_ argument: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
  guard let argument else { return nil }
  WorkerThreadSignals.block()
  let start = Unmanaged<CurlLoopStart>.fromOpaque(argument).takeRetainedValue()
  start.make().run()
  return nil
}
