internal import CCurl
import Foundation

/// One HTTP exchange with the daemon on a libcurl easy handle of its own, run to its end by
/// `perform` on the calling thread (never one of Swift's cooperative threads: see
/// `DaemonClient.exchange` and `EventStreamReader`).
///
/// The easy handle runs inside a multi handle of its own, so that a cancelled call's
/// `curl_multi_poll` wakes at once (`CallControl.cancel`) rather than at libcurl's next
/// progress tick, up to a second later while the daemon is silent; the progress callback
/// (`CURLOPT_XFERINFOFUNCTION`) then returns non-zero and libcurl stops the transfer.
///
/// Threading: created, performed and dropped on one thread. The C callbacks receive it as an
/// unretained `Unmanaged` pointer (`CURLOPT_WRITEDATA`, `CURLOPT_XFERINFODATA`): the calling
/// thread's reference keeps it alive for the whole of `perform`, the only time libcurl can
/// call them.
final class CurlCall {
  /// Shared with the task awaiting the call, which cancels through it.
  let control: CallControl
  let address: DaemonAddress
  let request: DaemonRequest
  /// Receives the body of a 2xx answer as it arrives, chunk by chunk; returning `false` stops
  /// the transfer. Without it, the body is collected and answered whole. The body of any
  /// other answer (an error) is always collected.
  var streamBody: ((UnsafeRawBufferPointer) -> Bool)?
  /// The answer's status, read when its first body byte arrives (or at the end).
  private var status = 0
  private var collected = Data()
  /// The easy handle, while `perform` runs.
  private var easy: UnsafeMutableRawPointer?

  /// The most of an error answer's body kept: enough for the daemon's error document.
  static let maxErrorBodyBytes = 64 * 1024
  /// How long connecting may take. The daemon is local; a connection that takes longer is
  /// not coming.
  static let connectTimeoutMilliseconds = 10_000

  init(address: DaemonAddress, request: DaemonRequest, control: CallControl) {
    self.address = address
    self.request = request
    self.control = control
  }

  /// Sends the request and waits for the whole answer (or, with `streamBody`, for the stream
  /// to end). Returns the answer whatever its status; fails with `.noDaemon` when nothing
  /// listens at the address, `.cancelled` once `control` is cancelled, and `.transport`
  /// otherwise.
  func perform() -> Result<DaemonResponse, DaemonError> {
    guard curlGlobalInitialization == CURLE_OK else {
      return .failure(.transport("libcurl could not be initialised"))
    }
    guard !control.isCancelled else { return .failure(.cancelled) }
    guard let easy = curl_easy_init() else {
      return .failure(.transport("libcurl could not create a handle"))
    }
    guard let multi = curl_multi_init() else {
      curl_easy_cleanup(easy)
      return .failure(.transport("libcurl could not create a handle"))
    }
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
    errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    var headers: UnsafeMutablePointer<curl_slist>?
    self.easy = easy
    defer {
      self.easy = nil
      curl_multi_cleanup(multi)
      curl_easy_cleanup(easy)
      curl_slist_free_all(headers)
      errorBuffer.deallocate()
    }

    let context = Unmanaged.passUnretained(self).toOpaque()
    let configured = configure(easy, context: context, errorBuffer: errorBuffer, headers: &headers)
    guard configured == CURLE_OK else {
      return .failure(.transport("libcurl refused an option: \(Self.text(configured))"))
    }
    guard curl_multi_add_handle(multi, easy) == CURLM_OK else {
      return .failure(.transport("libcurl could not start the transfer"))
    }
    let finished = drive(multi)
    curl_multi_remove_handle(multi, easy)

    switch finished {
    case nil:
      return .failure(.cancelled)
    case CURLE_OK?:
      if status == 0 {
        var code = 0
        _ = haul_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &code)
        status = code
      }
      return .success(DaemonResponse(status: status, body: collected))
    case let code?:
      if control.isCancelled { return .failure(.cancelled) }
      return .failure(failure(code, easy: easy, detail: errorBuffer))
    }
  }

  /// Runs the transfer until it ends; returns its code, or `nil` when it was cancelled.
  private func drive(_ multi: UnsafeMutableRawPointer) -> CURLcode? {
    guard control.attach(multi) else { return nil }
    defer { control.detach() }
    var running: Int32 = 1
    while running > 0 {
      guard curl_multi_perform(multi, &running) == CURLM_OK else {
        return CURLE_FAILED_INIT
      }
      guard running > 0 else { break }
      if control.isCancelled { return nil }
      // A second at most: libcurl's own timers (the connect timeout) wake it sooner.
      _ = curl_multi_poll(multi, nil, 0, 1000, nil)
    }
    var left: Int32 = 0
    var code = CURLE_OK
    while let message = curl_multi_info_read(multi, &left) {
      if message.pointee.msg == CURLMSG_DONE { code = message.pointee.data.result }
    }
    return code
  }

  /// Takes a chunk of the answer's body; `false` stops the transfer.
  func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
    guard !control.isCancelled else { return false }
    if status == 0, let easy {
      var code = 0
      _ = haul_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &code)
      status = code
    }
    let success = (200..<300).contains(status)
    if success, let streamBody { return streamBody(bytes) }
    if success || collected.count < Self.maxErrorBodyBytes {
      collected.append(contentsOf: bytes)
    }
    return true
  }

  /// The error a failed transfer stands for. A refused connection, or a socket file that is
  /// not there, means no daemon runs at the address.
  private func failure(
    _ code: CURLcode, easy: UnsafeMutableRawPointer, detail: UnsafeMutablePointer<CChar>
  ) -> DaemonError {
    if code == CURLE_COULDNT_CONNECT {
      var number = 0
      _ = haul_easy_getinfo_long(easy, CURLINFO_OS_ERRNO, &number)
      let error = Int32(number)
      if error == ECONNREFUSED || error == ENOENT { return .noDaemon(address) }
      if error != 0 {
        return .transport("cannot connect to \(address): \(String(cString: strerror(error)))")
      }
    }
    if code == CURLE_OPERATION_TIMEDOUT, status == 0 {
      return .transport("connecting to \(address) timed out")
    }
    let explanation = detail[0] == 0 ? Self.text(code) : String(cString: detail)
    return .transport("\(explanation) (\(address))")
  }

  private static func text(_ code: CURLcode) -> String {
    String(cString: curl_easy_strerror(code))
  }
}

@available(*, unavailable)
extension CurlCall: Sendable {}

/// `curl_global_init`, run once per process, before the first call.
private let curlGlobalInitialization: CURLcode = curl_global_init(Int(CURL_GLOBAL_ALL))
