internal import CCurl
import Foundation
import HaulCore

/// The C callbacks libcurl calls on the loop thread, inside `curl_multi_perform`.
///
/// Each receives the exchange as an unretained `Unmanaged` pointer (`CURLOPT_*DATA`); the
/// retained reference held by `CURLOPT_PRIVATE` keeps it alive for as long as libcurl can
/// call, so the callbacks use it without a retain of their own (`_withUnsafeGuaranteedRef`:
/// a header line or body chunk then costs no atomic reference count). None of them
/// allocates per chunk: body bytes go from libcurl's buffer straight to the sink, upload
/// bytes straight from the file into libcurl's buffer.
enum CurlCallbacks {
  /// `CURLOPT_HEADERFUNCTION`: one complete header line per call.
  static let header: curl_write_callback = { buffer, size, count, context in
    let length = size * count
    guard let context else { return 0 }
    let line = UnsafeRawBufferPointer(start: buffer, count: length)
    return Unmanaged<CurlExchange>.fromOpaque(context)._withUnsafeGuaranteedRef {
      $0.receiveHeaderLine(line)
    } ? length : 0
  }

  /// `CURLOPT_WRITEFUNCTION`: one chunk of the response body per call.
  static let write: curl_write_callback = { buffer, size, count, context in
    let length = size * count
    guard let context else { return 0 }
    let chunk = UnsafeRawBufferPointer(start: buffer, count: length)
    return Unmanaged<CurlExchange>.fromOpaque(context)._withUnsafeGuaranteedRef {
      $0.receiveBody(chunk)
    }
  }

  /// `CURLOPT_READFUNCTION`: fills libcurl's upload buffer from the body (its file, or the
  /// bytes it holds).
  static let read: curl_read_callback = { buffer, size, count, context in
    guard let context, let buffer else { return Int(CURL_READFUNC_ABORT) }
    let target = UnsafeMutableRawPointer(buffer)
    return Unmanaged<CurlExchange>.fromOpaque(context)._withUnsafeGuaranteedRef {
      $0.readBody(into: target, capacity: size * count)
    }
  }

  /// `CURLOPT_PREREQFUNCTION`: the exchange has its connection, and its request is about to
  /// go out.
  static let prereq: curl_prereq_callback = { context, _, _, _, _ in
    guard let context else { return CURL_PREREQFUNC_OK }
    Unmanaged<CurlExchange>.fromOpaque(context)._withUnsafeGuaranteedRef { $0.connectionReady() }
    return CURL_PREREQFUNC_OK
  }

  /// `CURLOPT_SEEKFUNCTION`: lets libcurl rewind the upload body to resend it.
  static let seek: curl_seek_callback = { context, offset, origin in
    guard let context else { return CURL_SEEKFUNC_FAIL }
    let exchange = Unmanaged<CurlExchange>.fromOpaque(context).takeUnretainedValue()
    return exchange.seekBody(to: Int64(offset), origin: origin)
  }
}

extension CurlExchange {
  /// The exchange has its connection: when it opened one that agreed on HTTP/2, its job hears
  /// so now (`TransportJob.connectionMultiplexes`), a round trip before the answer's status
  /// line would tell (libcurl 7.88 sets `CURLINFO_HTTP_VERSION` only then). Either way an
  /// https origin's route is settled by it (`CurlRoutes.settle`): carried by this loop over
  /// HTTP/2, spread over the loops when it offered h2 and the connection did not agree. A
  /// reused connection was told of by the exchange that opened it. The loop's stream gate
  /// hears of every connection (`CurlStreamGate.connected`). Called for https exchanges, and
  /// for any on a handle that ran one since its reset (`configure`).
  func connectionReady() {
    owner.check("a CurlExchange")
    guard let easy else { return }
    let opened = easy.openedConnection
    gate?.connected(self, opened: opened, multiplexes: opened && easy.negotiatedHTTP2)
    guard let job, opened else { return }
    if easy.negotiatedHTTP2 {
      if let routes, let origin = httpsOrigin { routes.settle(origin, multiplexes: true) }
      job.connectionMultiplexes(handshake: easy.handshakeSeconds)
    } else if offersHTTP2, let origin = httpsOrigin {
      routes?.settle(origin, multiplexes: false)
    }
  }

  /// Takes one header line; returns `false` to make libcurl abort the exchange.
  func receiveHeaderLine(_ line: UnsafeRawBufferPointer) -> Bool {
    owner.check("a CurlExchange")
    // Lines after the final head are trailers of a chunked body; haul does not use them.
    guard head == nil else { return true }
    switch parser.consume(line) {
    case .needMore, .interim(nil):
      return true
    case .interim(let interim?):
      sink.receive(interim: interim)
      return true
    case .complete(let head):
      if let refusal = proxyRefusal(head) {
        failure = refusal
        return false
      }
      return deliver(head)
    case .tooLarge:
      failure = TransferError(
        .protocol, "the response header block is larger than \(parser.maxBytes) bytes")
      return false
    case .malformed:
      failure = TransferError(.protocol, "the response head has no valid status line")
      return false
    }
  }

  /// Takes one body chunk; returns the bytes taken, and anything else (0) makes libcurl
  /// abort the exchange.
  ///
  /// Returns `CURL_WRITEFUNC_PAUSE` without taking the chunk when `--max-rate` says wait;
  /// libcurl then offers the same chunk again once the loop resumes the exchange.
  func receiveBody(_ chunk: UnsafeRawBufferPointer) -> Int {
    owner.check("a CurlExchange")
    if let rateLimiter, rateLimiter.mustPause(self) { return Int(CURL_WRITEFUNC_PAUSE) }
    if head == nil, !deliver(parser.head(status: easy?.responseCode ?? 0)) { return 0 }
    rateLimiter?.charge(chunk.count)
    receivedBytes += Int64(chunk.count)
    guard acceptsBody else { return chunk.count }
    do {
      try sink.receive(body: chunk)
      bodyBytes += Int64(chunk.count)
      return chunk.count
    } catch {
      failure = error
      return 0
    }
  }

  /// Copies the next upload bytes into `buffer`; returns the count, 0 at the end, or
  /// `CURL_READFUNC_ABORT` when the body's file cannot be read (the reason kept in `failure`), or
  /// `CURL_READFUNC_PAUSE` when `--max-rate` says wait.
  func readBody(into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int {
    owner.check("a CurlExchange")
    guard let body = request.body else { return 0 }
    let remaining = body.length - uploadOffset
    guard remaining > 0 else { return 0 }
    if let rateLimiter, rateLimiter.mustPause(self) { return Int(CURL_READFUNC_PAUSE) }
    let wanted = Int(min(Int64(capacity), remaining))
    let count = copyBody(into: buffer, count: wanted, at: uploadOffset)
    if count < 0 {
      failure = TransferError(
        .io, "cannot read the upload body: \(String(cString: strerror(errno)))")
      return Int(CURL_READFUNC_ABORT)
    }
    if count == 0 {
      failure = TransferError(.io, "the upload body is shorter than its stated length")
      return Int(CURL_READFUNC_ABORT)
    }
    uploadOffset += Int64(count)
    rateLimiter?.charge(count)
    sink.sent(totalBytes: uploadOffset)
    return count
  }

  /// Restarts the stall clock when bytes moved since the last look; returns `false` (the
  /// reason kept in `failure`) once nothing moved for `stallTimeout`. The loop looks at
  /// every active exchange several times a second (`CurlLoop.sweepStalls`), at `now`
  /// (monotonic nanoseconds).
  ///
  /// This is the only stall rule: libcurl's own `LOW_SPEED_TIME` averages the rate over a
  /// window, which fails a slow drip that is never silent for long, and fires seconds late
  /// on real silence; this check counts from the last byte. The clock starts once
  /// libcurl is about to send the request (`CURLINFO_PRETRANSFER_TIME_T`), so an exchange
  /// waiting for a free connection is not timed (connecting has its own timeout), and
  /// stands still while `--max-rate` holds the exchange paused.
  func checkStall(now: UInt64) -> Bool {
    owner.check("a CurlExchange")
    let moved = receivedBytes + uploadOffset + Int64(parser.totalBytes)
    if moved != movedBytes || isPaused || lastMovement == 0 {
      if lastMovement == 0, moved == 0, !(easy?.hasStartedRequest ?? false) { return true }
      movedBytes = moved
      lastMovement = now
      return true
    }
    guard request.stallTimeout > 0, Double(now - lastMovement) / 1e9 >= request.stallTimeout
    else { return true }
    failure = TransferError(
      .timeout, "no byte moved for \(Self.seconds(request.stallTimeout)) seconds")
    return false
  }

  private static func seconds(_ value: Double) -> String {
    value == value.rounded() ? String(Int(value)) : String(value)
  }

  /// Moves the upload position; only absolute positions inside the body are allowed.
  func seekBody(to offset: Int64, origin: Int32) -> Int32 {
    owner.check("a CurlExchange")
    guard origin == SEEK_SET, let body = request.body, (0...body.length).contains(offset) else {
      return CURL_SEEKFUNC_CANTSEEK
    }
    uploadOffset = offset
    return CURL_SEEKFUNC_OK
  }
}
