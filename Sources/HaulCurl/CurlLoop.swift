internal import CCurl
import HaulCore

/// The thread that owns the multi handle and every easy handle: it runs
/// `curl_multi_perform`, collects finished exchanges, carries out the mailbox's commands,
/// and sleeps in `curl_multi_poll` until a socket, a curl timer or `curl_multi_wakeup`
/// needs it.
///
/// Threading: made on the loop thread (`CurlTransport.init` starts the thread with what to
/// make it from), which owns it and everything it makes: its mutable state is `@LoopBound`,
/// checked in debug builds. Its callbacks (the sinks' methods) run on this thread, one at a
/// time.
final class CurlLoop {
  /// How a finished exchange ended, from the loop's point of view.
  private enum Outcome {
    /// libcurl finished it with this code.
    case completed(CURLcode)
    /// The loop stopped it (cancel command or shutdown); the text says which.
    case stopped(String)
  }

  private let multi: UnsafeMutableRawPointer
  private let mailbox: CurlMailbox
  /// This loop's place among the transport's loops, and which of them carries which https
  /// origin (`nil` with a single loop).
  private let index: Int
  private let routes: CurlRoutes?
  private let settings: CurlSettings
  private let rateLimiter: CurlRateLimiter?
  /// Easy handles waiting for the next exchange; at most `maxIdleHandles` are kept.
  @LoopBound private var idleHandles: [CurlEasy] = []
  private let maxIdleHandles: Int
  private let maxHeaderBytes: Int
  /// Exchanges inside libcurl, each with the retained reference libcurl holds as
  /// `CURLOPT_PRIVATE`. Looked up by identity on cancel; walked only at shutdown.
  @LoopBound private var active: [ObjectIdentifier: Unmanaged<CurlExchange>] = [:]
  @LoopBound private var batch: [CurlMailbox.Command] = []
  /// Holds exchanges to an HTTP/2 origin that its connections have no room for yet.
  private let gate = CurlStreamGate()
  /// Job exchanges to https origins another loop is deciding (`CurlRoutes.Placement.hold`),
  /// started when it has (`CurlMailbox.Command.released`).
  @LoopBound private var held: [CurlExchange] = []
  /// The header list plain GETs share; freed with the loop, after its last exchange.
  private let headerCache = CurlHeaderListCache()
  /// When `sweepStalls` last looked at the active exchanges, in monotonic nanoseconds.
  @LoopBound private var lastSweep: UInt64 = 0
  /// How often the active exchanges' stall clocks are read: often enough that a stall ends
  /// within a quarter of a second of its timeout.
  private static let sweepInterval: UInt64 = 250_000_000
  @LoopBound private var shutdownWaiters: [CheckedContinuation<Void, Never>] = []
  /// How many `cancelJobs` commands this loop carried out. Each is posted to every loop, so
  /// the counts of two loops name the same commands: a job's exchange handed here from
  /// another loop is stopped by the ones that loop had not carried out when it took the
  /// job's step, and by no earlier one (`CurlExchange.cancelMark`).
  @LoopBound private var cancelsCarried = 0

  init(
    multi: UnsafeMutableRawPointer, mailbox: CurlMailbox, index: Int, routes: CurlRoutes?,
    settings: CurlSettings, maxIdleHandles: Int, maxHeaderBytes: Int, maxBytesPerSecond: Double?
  ) {
    self.index = index
    self.routes = routes
    self.maxHeaderBytes = maxHeaderBytes
    rateLimiter = maxBytesPerSecond.flatMap { $0 > 0 ? CurlRateLimiter(bytesPerSecond: $0) : nil }
    self.multi = multi
    self.mailbox = mailbox
    self.settings = settings
    self.maxIdleHandles = maxIdleHandles
  }

  /// Runs until a shutdown command arrives, then tears everything down.
  func run() {
    while shutdownWaiters.isEmpty {
      mailbox.take(into: &batch)
      for command in batch { handle(command) }
      batch.removeAll(keepingCapacity: true)
      guard shutdownWaiters.isEmpty else { break }
      rateLimiter?.resumeDue()
      var running: Int32 = 0
      curl_multi_perform(multi, &running)
      collectFinished()
      sweepStalls()
      for exchange in gate.takeReady() { enter(exchange) }
      // Wakes earlier for socket activity, curl's own timers, `curl_multi_wakeup`, or the
      // next exchange `--max-rate` paused becoming due; with exchanges active, at least as
      // often as their stall clocks are read.
      let idle = active.isEmpty ? 1000 : Int(Self.sweepInterval / 1_000_000)
      let timeout = min(idle, rateLimiter?.millisecondsUntilNextResume() ?? idle)
      if mailbox.prepareToSleep() {
        curl_multi_poll(multi, nil, 0, Int32(timeout), nil)
      }
    }
    tearDown()
  }

  private func handle(_ command: CurlMailbox.Command) {
    switch command {
    case .add(let exchange):
      start(exchange)
    case .cancel(let exchange):
      switch exchange.phase {
      case .queued:
        if gate.release(exchange) {
          complete(exchange, .failure(TransferError(.cancelled, "the transfer was cancelled")))
        } else {
          exchange.cancelRequested = true
        }
      case .active: finish(exchange, .stopped("the transfer was cancelled"))
      case .finished: break
      }
    case .jobs(let jobs):
      for job in jobs { step(job, job.begin()) }
    case .cancelJobs:
      cancelsCarried += 1
      for retained in Array(active.values) {
        let exchange = retained.takeUnretainedValue()
        guard exchange.job != nil, exchange.cancelMark < cancelsCarried else { continue }
        finish(exchange, .stopped("the transfer was cancelled"))
      }
      let carried = cancelsCarried
      let gated = gate.releaseAll { $0.job != nil && $0.cancelMark < carried }
      for exchange in gated {
        complete(exchange, .failure(TransferError(.cancelled, "the transfer was cancelled")))
      }
      let waiting = held
      held = waiting.filter { $0.cancelMark >= carried }
      for exchange in waiting where exchange.cancelMark < carried {
        complete(exchange, .failure(TransferError(.cancelled, "the transfer was cancelled")))
      }
    case .released:
      let waiting = held
      held.removeAll()
      for exchange in waiting { start(exchange) }
    case .shutdown(let waiter):
      shutdownWaiters.append(waiter)
    }
  }

  /// Carries out what a job asked for next. A job's steps all run here, on the loop
  /// thread: the exchange it asks for starts at once, and its end is told to the job
  /// (`exchangeEnded`) in `complete`, which may ask for the next.
  private func step(_ job: any TransportJob, _ next: JobStep) {
    var next = next
    while case .send(let request, let sink) = next {
      do throws(TransferError) {
        let exchange = try CurlExchange(
          request: request, sink: sink, maxHeaderBytes: maxHeaderBytes)
        exchange.job = job
        exchange.cancelMark = cancelsCarried
        start(exchange)
        return
      } catch {
        next = job.exchangeEnded(.failure(error))
      }
    }
  }

  /// Ends `exchange` with `result`: resumes its task, or tells its job and takes its next
  /// step.
  private func complete(_ exchange: CurlExchange, _ result: Result<TransferResponse, TransferError>)
  {
    guard let job = exchange.complete(result) else { return }
    step(job, job.exchangeEnded(result))
  }

  private func start(_ exchange: CurlExchange) {
    exchange.owner.adopt()
    if exchange.cancelRequested {
      complete(exchange, .failure(TransferError(.cancelled, "the transfer was cancelled")))
      return
    }
    if let routes, exchange.job != nil, handOver(exchange, routes: routes) { return }
    guard gate.admits(exchange) else { return }
    enter(exchange)
  }

  /// Puts an exchange the gate let through into libcurl.
  private func enter(_ exchange: CurlExchange) {
    guard let easy = idleHandles.popLast() ?? CurlEasy() else {
      gate.left(exchange)
      complete(
        exchange, .failure(TransferError(.connection, "libcurl could not create a handle")))
      return
    }
    // The exchange enters libcurl here, once; `finish` takes this reference back.
    let retained = Unmanaged.passRetained(exchange)
    exchange.easy = easy
    exchange.rateLimiter = rateLimiter
    exchange.headerCache = headerCache
    exchange.phase = .active
    active[ObjectIdentifier(exchange)] = retained
    let configured = exchange.configure(easy, settings: settings, context: retained.toOpaque())
    guard configured == CURLE_OK else {
      finish(exchange, .completed(configured))
      return
    }
    exchange.isConfigured = true
    let added = curl_multi_add_handle(multi, easy.handle)
    if added != CURLM_OK {
      let reason = String(cString: curl_multi_strerror(added))
      finish(exchange, .stopped("libcurl refused the transfer: \(reason)"))
    }
  }

  /// Hands a job's exchange to the loop that carries its https origin, when that is another
  /// loop, or holds it while another loop decides the origin (`CurlRoutes`); returns whether
  /// the exchange left this loop's way into libcurl (or ended: this loop carried out a cancel
  /// of the jobs that the loop it came from had not yet when it sent it).
  private func handOver(_ exchange: CurlExchange, routes: CurlRoutes) -> Bool {
    exchange.routes = routes
    if exchange.isHandedOver {
      exchange.isHandedOver = false
      guard CurlRoutes.cancelsOnArrival(mark: exchange.cancelMark, carried: cancelsCarried)
      else { return false }
      complete(exchange, .failure(TransferError(.cancelled, "the transfer was cancelled")))
      return true
    }
    guard let origin = exchange.httpsOrigin else { return false }
    switch routes.placement(of: origin, asking: index, decides: !exchange.goesOverHTTP11) {
    case .here:
      return false
    case .hold:
      held.append(exchange)
      return true
    case .handOver(let owner):
      exchange.isHandedOver = true
      if !routes.mailboxes[owner].post(.add(exchange)) {
        complete(exchange, .failure(TransferError(.cancelled, "the transport was shut down")))
      }
      return true
    }
  }

  private func collectFinished() {
    var queued: Int32 = 0
    while let message = curl_multi_info_read(multi, &queued) {
      guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle else {
        continue
      }
      let result = message.pointee.data.result
      var context: UnsafeMutableRawPointer?
      _ = haul_easy_getinfo_pointer(handle, CURLINFO_PRIVATE, &context)
      guard let context else { continue }
      finish(Unmanaged<CurlExchange>.fromOpaque(context).takeUnretainedValue(), .completed(result))
    }
  }

  /// Fails every active exchange that moved no byte for its stall timeout. Runs at most
  /// once per `sweepInterval`, so a loop busy with many small exchanges reads the clock
  /// once per pass and the exchanges' state a few times a second.
  private func sweepStalls() {
    var clock = timespec()
    clock_gettime(CLOCK_MONOTONIC, &clock)
    let now = UInt64(clock.tv_sec) * 1_000_000_000 + UInt64(clock.tv_nsec)
    guard now - lastSweep >= Self.sweepInterval else { return }
    lastSweep = now
    var stalled: [CurlExchange] = []
    for retained in active.values {
      let exchange = retained.takeUnretainedValue()
      if !exchange.checkStall(now: now) { stalled.append(exchange) }
    }
    for exchange in stalled { finish(exchange, .completed(CURLE_ABORTED_BY_CALLBACK)) }
  }

  /// Ends an active exchange: the one place where its reference leaves libcurl. Removes the
  /// handle from the multi handle, builds the result, recycles the handle, and resumes the
  /// waiting `perform`. Does nothing for an exchange that is not active. An upload whose
  /// small body a reset cost its answer goes out again instead (`resendsWithExpect`).
  private func finish(_ exchange: CurlExchange, _ outcome: Outcome) {
    guard let retained = active.removeValue(forKey: ObjectIdentifier(exchange)),
      let easy = exchange.easy
    else { return }
    curl_multi_remove_handle(multi, easy.handle)
    rateLimiter?.forget(exchange)
    if case .completed(let code) = outcome, exchange.resendsWithExpect(after: code),
      exchange.prepareResend(on: easy) == CURLE_OK,
      curl_multi_add_handle(multi, easy.handle) == CURLM_OK
    {
      active[ObjectIdentifier(exchange)] = retained
      return
    }
    let result: Result<TransferResponse, TransferError>
    switch outcome {
    case .completed(let code): result = exchange.result(for: code, easy: easy)
    case .stopped(let reason): result = .failure(TransferError(.cancelled, reason))
    }
    exchange.easy = nil
    gate.left(exchange)
    // A job's exchange that ends while this loop still decides its origin never told:
    // its connection failed first.
    if let routes, exchange.job != nil, let origin = exchange.httpsOrigin {
      routes.abandon(origin, by: index)
    }
    recycle(easy, keepingOptions: exchange.leavesHandleReusable && exchange.isConfigured)
    retained.release()
    complete(exchange, result)
  }

  /// Keeps a finished handle for the next exchange.
  ///
  /// `keepingOptions` skips the reset after a plain GET whose options were all set: the next
  /// exchange overwrites every option of its own, and the shared ones stay as they were.
  /// A handle that ever spoke HTTP/2 is kept only so: libcurl 7.88 refuses
  /// `CURLOPT_BUFFERSIZE` on it (CURLE_BAD_FUNCTION_ARGUMENT), which after a reset would fail
  /// the next exchange before it starts, and a kept one never sets it again. Over HTTP/2,
  /// where small files are streams of one connection, that spares each file a handle's
  /// creation, its shared options and its cleanup.
  private func recycle(_ easy: CurlEasy, keepingOptions: Bool) {
    if easy.usedHTTP2 { easy.spokeHTTP2 = true }
    let reusable = keepingOptions || !easy.spokeHTTP2
    if keepingOptions {
      easy.errorBuffer[0] = 0
      easy.holdsSharedOptions = true
    } else {
      easy.reset()
    }
    if reusable && idleHandles.count < maxIdleHandles {
      idleHandles.append(easy)
    } else {
      easy.cleanup()
    }
  }

  private func tearDown() {
    for command in mailbox.close() {
      switch command {
      case .add(let exchange):
        _ = exchange.complete(.failure(TransferError(.cancelled, "the transport was shut down")))
      case .cancel, .jobs, .cancelJobs, .released:
        // No job is left by then: a run ends only after its last job did.
        break
      case .shutdown(let waiter):
        shutdownWaiters.append(waiter)
      }
    }
    for retained in Array(active.values) {
      finish(retained.takeUnretainedValue(), .stopped("the transport was shut down"))
    }
    for exchange in gate.releaseAll(where: { _ in true }) + held {
      _ = exchange.complete(.failure(TransferError(.cancelled, "the transport was shut down")))
    }
    held.removeAll()
    for easy in idleHandles { easy.cleanup() }
    idleHandles.removeAll()
    curl_multi_cleanup(multi)
    for waiter in shutdownWaiters { waiter.resume() }
  }
}

@available(*, unavailable)
extension CurlLoop: Sendable {}

extension CurlExchange {
  /// The outcome of an exchange libcurl finished with `code`.
  func result(for code: CURLcode, easy: CurlEasy) -> Result<TransferResponse, TransferError> {
    if let failure { return .failure(failure) }
    guard code == CURLE_OK else {
      if code == CURLE_OUT_OF_MEMORY, head == nil {
        return .failure(.headerLineTooLong)
      }
      return .failure(error(for: code, easy: easy))
    }
    // A response without a body (HEAD, 204, 304) may end before the head was delivered.
    if head == nil, !deliver(parser.head(status: easy.responseCode)) {
      return .failure(failure ?? TransferError(.protocol, "the response head was refused"))
    }
    guard let head else {
      return .failure(TransferError(.protocol, "the response had no head"))
    }
    return .success(
      TransferResponse(
        head: head, bodyBytes: bodyBytes, sentBytes: uploadOffset, timing: easy.timing))
  }
}
