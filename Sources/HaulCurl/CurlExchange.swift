internal import CCurl
import Foundation
import HaulCore

/// The context of one exchange: the request, the sink, and everything the callbacks build.
///
/// Ownership: `CurlTransport.perform` creates it (opening the upload file, so a missing file
/// fails before any network work) and posts it to a loop, or a loop creates it for a job;
/// from then on the loop that carries it is its `owner`, which adopts it as it starts it
/// (`CurlLoop.start`, also after a hand-over from another loop); libcurl's callbacks check,
/// in debug builds, that they run on that thread.
///
/// It enters libcurl once, as `CURLOPT_PRIVATE` holding a retained reference
/// (`Unmanaged.passRetained`), and the loop takes that reference back exactly once, in
/// `CurlLoop.finish`. The callbacks receive the same pointer unretained.
// unchecked: one thread owns it at a time (`owner`, checked in debug builds), via mailboxes.
final class CurlExchange: @unchecked Sendable {
  /// Where the exchange is in its life, as seen by the loop.
  enum Phase {
    /// Posted, not yet inside libcurl.
    case queued
    /// Added to the multi handle.
    case active
    /// Its continuation has been resumed.
    case finished
  }

  /// The thread that carries the exchange: its creator, then the loop that starts it.
  var owner = OwningThread()
  let request: TransferRequest
  let sink: any ResponseSink
  /// The request's method in upper case, read once: `uppercased()` copies it.
  let method: String
  /// Whether the exchange is held to HTTP/1.1: uploads are (see `configure`).
  let goesOverHTTP11: Bool
  /// The request URL's scheme as written, read once.
  let scheme: String?
  /// Whether the request URL is https (its scheme, ASCII case ignored).
  let isHTTPS: Bool
  /// The key of the request's https origin (`CurlRoutes.origin(of:)`), `nil` for any other
  /// URL; worked out on first use, once.
  private(set) lazy var httpsOrigin: String? = CurlRoutes.origin(of: request.url, https: isHTTPS)
  /// Who waits for the result: a task suspended in `perform`, or a job the loop carries.
  var continuation: CheckedContinuation<Result<TransferResponse, TransferError>, Never>?
  var job: (any TransportJob)?

  var phase = Phase.queued
  /// Set when a cancel command arrives before the exchange became active.
  var cancelRequested = false
  /// Whether every option of this exchange was set on its handle.
  var isConfigured = false
  /// The handle running this exchange, while it is active.
  var easy: CurlEasy?
  /// The request header list given to `CURLOPT_HTTPHEADER`; freed when the exchange ends
  /// if it is the exchange's own (`ownsHeaderList`), not the loop's shared one.
  var headerList: UnsafeMutablePointer<curl_slist>?
  var ownsHeaderList = true
  /// The loop's shared list for plain GETs (`CurlHeaderListCache`), set when it starts the
  /// exchange.
  var headerCache: CurlHeaderListCache?

  /// Unchecked exclusivity: only the loop thread touches the exchange, one callback at a
  /// time; the runtime check would run once per header line.
  @exclusivity(unchecked) var parser: ResponseHeadParser
  /// The final head, once complete.
  var head: ResponseHead?
  /// Whether the sink wants the body; when `false` the write callback drops it.
  var acceptsBody = false
  var bodyBytes: Int64 = 0
  /// The failure a callback detected (a sink error, oversized headers, a short upload file).
  /// It wins over the CURLcode libcurl reports as a consequence.
  var failure: TransferError?
  /// The proxy this exchange goes through (`ProxyRules`), or `nil` when it goes direct.
  var proxy: ProxyServer?

  /// The transport's `--max-rate` limiter, or `nil` when there is no cap.
  var rateLimiter: CurlRateLimiter?
  /// Whether the limiter has paused this exchange; the stall clock stands still meanwhile.
  var isPaused = false

  /// Which loop carries which https origin, when the transport has several loops.
  var routes: CurlRoutes?
  /// The loop's gate for HTTP/2 streams (`CurlStreamGate`), from when it weighed this
  /// exchange until the exchange left libcurl: the gate to tell of its connection.
  var gate: CurlStreamGate?
  /// Set while a job's exchange is on its way to the loop that carries its origin.
  var isHandedOver = false
  /// How many `cancelJobs` commands the loop that took this job's step had carried out then:
  /// only a later one stops the exchange, on whichever loop carries it (`CurlLoop`).
  var cancelMark = 0
  /// Whether the request offers HTTP/2 (uploads go over HTTP/1.1 alone): only then does a
  /// connection that agreed on HTTP/1.1 tell that its origin speaks no HTTP/2.
  var offersHTTP2 = true

  /// Body bytes libcurl handed over, kept or dropped: movement for the stall clock.
  var receivedBytes: Int64 = 0
  /// Bytes moved (headers, body, upload) when the stall clock last restarted.
  var movedBytes: Int64 = -1
  /// When bytes last moved, in monotonic nanoseconds; 0 until the clock starts.
  var lastMovement: UInt64 = 0

  /// Whether the body goes without waiting for `100 Continue` (`CurlSettings.sendsAtOnceUpTo`);
  /// cleared when the exchange is sent again waiting for it (`resendsWithExpect`).
  var sendsBodyAtOnce = false

  /// The upload file, opened once per exchange, or -1 (no body, or one in memory).
  private(set) var bodyFile: Int32 = -1
  /// The file offset of the body's first byte.
  private(set) var bodyFileOffset: Int64 = 0
  /// A body held in memory by the request (`RequestBody.Content.bytes`), read from here
  /// instead of a file.
  private(set) var memoryBody: [UInt8]?
  /// The next upload byte to send; the seek callback moves it back when libcurl rewinds.
  /// For a body held in memory, the bytes libcurl reports sent once the answer arrives.
  var uploadOffset: Int64 = 0
  /// A small upload body read whole, which libcurl sends with the request head
  /// (`configureHeldBody`); freed with the exchange's other resources.
  var heldBody: UnsafeMutableRawBufferPointer?

  init(request: TransferRequest, sink: any ResponseSink, maxHeaderBytes: Int) throws(TransferError)
  {
    self.request = request
    self.sink = sink
    let method = request.method.uppercased()
    self.method = method
    goesOverHTTP11 = request.body != nil || method == "PUT" || method == "POST"
    let scheme = request.url.scheme
    self.scheme = scheme
    isHTTPS = CurlRoutes.isHTTPS(scheme)
    parser = ResponseHeadParser(maxBytes: maxHeaderBytes, keepsCookies: request.readsCookies)
    switch request.body?.content {
    case .file(let path, let offset, _):
      let file = open(path, O_RDONLY | O_CLOEXEC)
      guard file >= 0 else {
        let reason = String(cString: strerror(errno))
        throw TransferError(.io, "cannot open the upload body: \(reason)")
      }
      bodyFile = file
      bodyFileOffset = offset
    case .bytes(let bytes):
      memoryBody = bytes
    case nil:
      break
    }
  }

  /// Copies up to `count` bytes of the body from `position` (counted from the body's first
  /// byte) into `buffer`: from the file (`pread`, EINTR retried) or from the bytes in
  /// memory. The count; 0 past the end; -1 with `errno` set when the file cannot be read.
  func copyBody(into buffer: UnsafeMutableRawPointer, count: Int, at position: Int64) -> Int {
    guard let memoryBody else {
      var copied: Int
      repeat {
        copied = pread(bodyFile, buffer, count, off_t(bodyFileOffset + position))
      } while copied < 0 && errno == EINTR
      return copied
    }
    let start = Int(min(position, Int64(memoryBody.count)))
    let copied = min(count, memoryBody.count - start)
    guard copied > 0 else { return 0 }
    memoryBody.withUnsafeBytes {
      buffer.copyMemory(from: $0.baseAddress! + start, byteCount: copied)
    }
    return copied
  }

  /// Releases what the exchange holds besides the easy handle: the header list and the body.
  func releaseResources() {
    releaseHeaderList()
    if bodyFile >= 0 { close(bodyFile) }
    bodyFile = -1
    heldBody?.deallocate()
    heldBody = nil
    memoryBody = nil
  }

  /// Frees the header list if it is the exchange's own, and forgets it.
  func releaseHeaderList() {
    if let headerList, ownsHeaderList { curl_slist_free_all(headerList) }
    headerList = nil
    ownsHeaderList = true
  }

  /// Ends the exchange: releases its resources and resumes the waiting `perform`, or
  /// returns its job for the loop to tell. Called once, on the loop thread (or by
  /// `perform` if the loop is gone).
  func complete(_ result: Result<TransferResponse, TransferError>) -> (any TransportJob)? {
    phase = .finished
    releaseResources()
    let continuation = self.continuation
    self.continuation = nil
    continuation?.resume(returning: result)
    defer { job = nil }
    return job
  }

  /// Hands the completed head to the sink, recording whether it wants the body.
  /// Returns `false` when its framing cannot be trusted (`ResponseHead.framingProblem`) or
  /// the sink threw; the error is kept in `failure`.
  func deliver(_ head: ResponseHead) -> Bool {
    self.head = head
    if heldBody != nil, let easy {
      uploadOffset = easy.sentBodyBytes
      sink.sent(totalBytes: uploadOffset)
    }
    if let problem = head.framingProblem {
      failure = problem
      return false
    }
    do {
      acceptsBody = try sink.receive(head: head)
      return true
    } catch {
      failure = error
      return false
    }
  }
}
