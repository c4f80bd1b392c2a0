internal import CCurl
import HaulCore

/// One libcurl easy handle and its error buffer, reused across exchanges.
///
/// Threading: made by the loop on its thread, which owns it (its flags are `@LoopBound`); the
/// handle is reset (`curl_easy_reset`) between exchanges, never shared, and cleaned up only by
/// the loop.
final class CurlEasy {
  let handle: UnsafeMutableRawPointer
  /// Where curl writes a one-line explanation of a failure (`CURLOPT_ERRORBUFFER`).
  let errorBuffer: UnsafeMutablePointer<CChar>
  /// Whether the handle still holds the options every exchange shares (set by the last
  /// exchange, a plain GET, and not reset since), so the next exchange sets only its own.
  /// Saves a `curl_easy_reset` and a dozen options per small file.
  @LoopBound var holdsSharedOptions = false
  /// Whether any transfer of this handle spoke HTTP/2: libcurl 7.88 then refuses
  /// `CURLOPT_BUFFERSIZE` on it, so it must not be reset and set up again
  /// (`CurlLoop.recycle`).
  @LoopBound var spokeHTTP2 = false
  /// Whether `CURLOPT_PREREQFUNCTION` is set on the handle (until the next reset): it is set
  /// for the first https exchange the handle runs, and from then on every exchange on it
  /// gives its own `CURLOPT_PREREQDATA`.
  @LoopBound var hearsConnections = false
  /// The exchange's URL, parsed (a `CURLU` handle reused across exchanges; libcurl copies
  /// it when the transfer starts).
  let url: OpaquePointer

  /// Creates a handle, or `nil` when libcurl cannot allocate one.
  init?() {
    guard let handle = curl_easy_init() else { return nil }
    guard let url = curl_url() else {
      curl_easy_cleanup(handle)
      return nil
    }
    self.handle = handle
    self.url = url
    errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
    errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
  }

  /// Forgets every option set for the previous exchange (the multi handle keeps the
  /// connections), so the next exchange starts from libcurl's defaults.
  func reset() {
    curl_easy_reset(handle)
    errorBuffer[0] = 0
    holdsSharedOptions = false
    hearsConnections = false
  }

  /// Frees the handle. Called once, by the loop, after the handle left the multi handle.
  func cleanup() {
    curl_easy_cleanup(handle)
    curl_url_cleanup(url)
    errorBuffer.deallocate()
  }

  /// The text curl left in the error buffer, if any.
  var errorDetail: String? {
    errorBuffer[0] == 0 ? nil : String(cString: errorBuffer)
  }

  func set(_ option: CURLoption, _ value: Int) -> CURLcode {
    haul_easy_setopt_long(handle, option, value)
  }

  func set(_ option: CURLoption, _ value: Int64) -> CURLcode {
    haul_easy_setopt_off_t(handle, option, curl_off_t(value))
  }

  func set(_ option: CURLoption, _ value: String) -> CURLcode {
    value.withCString { haul_easy_setopt_string(handle, option, $0) }
  }

  /// Sets the exchange's URL both as text (`CURLOPT_URL`) and parsed (`CURLOPT_CURLU`).
  ///
  /// Why both: given the text alone, libcurl 7.88 parses it at the transfer's start and then
  /// writes it out again through its printf, a byte at a time, for every transfer; given
  /// the parsed handle too, it copies the handle and keeps the text as is.
  /// A URL libcurl cannot parse fails here with `CURLE_URL_MALFORMAT`, as it would there.
  func setURL(_ text: String) -> CURLcode {
    let parsed = text.withCString { curl_url_set(url, CURLUPART_URL, $0, 0) }
    guard parsed == CURLUE_OK else { return CURLE_URL_MALFORMAT }
    let code = set(CURLOPT_URL, text)
    guard code == CURLE_OK else { return code }
    return haul_easy_setopt_pointer(handle, CURLOPT_CURLU, UnsafeMutableRawPointer(url))
  }

  /// Unsets a string option (libcurl's own default, a CA bundle say, included).
  func clear(_ option: CURLoption) -> CURLcode {
    haul_easy_setopt_string(handle, option, nil)
  }

  func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?) -> CURLcode {
    haul_easy_setopt_pointer(handle, option, pointer)
  }

  func set(_ option: CURLoption, list: UnsafeMutablePointer<curl_slist>?) -> CURLcode {
    haul_easy_setopt_slist(handle, option, list)
  }

  func set(_ option: CURLoption, write: curl_write_callback) -> CURLcode {
    haul_easy_setopt_write_callback(handle, option, write)
  }

  func set(_ option: CURLoption, read: curl_read_callback) -> CURLcode {
    haul_easy_setopt_read_callback(handle, option, read)
  }

  func set(_ option: CURLoption, seek: curl_seek_callback) -> CURLcode {
    haul_easy_setopt_seek_callback(handle, option, seek)
  }

  func set(_ option: CURLoption, prereq: curl_prereq_callback) -> CURLcode {
    haul_easy_setopt_prereq_callback(handle, option, prereq)
  }

  /// The HTTP status of the last response, or 0 when none arrived.
  var responseCode: Int {
    var code = 0
    _ = haul_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code)
    return code
  }

  /// Whether the last transfer spoke HTTP/2 (`CURLINFO_HTTP_VERSION`).
  var usedHTTP2: Bool {
    var version = 0
    _ = haul_easy_getinfo_long(handle, CURLINFO_HTTP_VERSION, &version)
    return version == CURL_HTTP_VERSION_2_0
  }

  /// Whether the current transfer opened a new connection (`CURLINFO_NUM_CONNECTS`) rather
  /// than reusing one.
  var openedConnection: Bool {
    var connects = 0
    _ = haul_easy_getinfo_long(handle, CURLINFO_NUM_CONNECTS, &connects)
    return connects > 0
  }

  /// Whether the current transfer's connection agreed on HTTP/2 while connecting (TLS ALPN),
  /// which `usedHTTP2` tells only once the response arrived. Read once the transfer has its
  /// connection.
  var negotiatedHTTP2: Bool { haul_easy_alpn_is_h2(handle) != 0 }

  /// How long the current transfer's TLS handshake took, in seconds
  /// (`CURLINFO_APPCONNECT_TIME_T` less `CONNECT_TIME_T`): a round trip to the server that
  /// holds the certificate, a proxy's tunnel included, plus both ends' work. 0 without TLS.
  var handshakeSeconds: Double {
    var connected: curl_off_t = 0
    var secured: curl_off_t = 0
    _ = haul_easy_getinfo_off_t(handle, CURLINFO_CONNECT_TIME_T, &connected)
    _ = haul_easy_getinfo_off_t(handle, CURLINFO_APPCONNECT_TIME_T, &secured)
    return secured > connected ? Double(secured - connected) / 1_000_000 : 0
  }

  /// The request body bytes libcurl has sent so far (`CURLINFO_SIZE_UPLOAD_T`).
  var sentBodyBytes: Int64 {
    var bytes: curl_off_t = 0
    _ = haul_easy_getinfo_off_t(handle, CURLINFO_SIZE_UPLOAD_T, &bytes)
    return Int64(bytes)
  }

  /// The last transfer's times (`CURLINFO_PRETRANSFER_TIME_T`, `STARTTRANSFER`, `TOTAL`,
  /// `NUM_CONNECTS`): the time to the first byte counts from the request being sent, so a
  /// new connection's handshakes are not read as the server's latency.
  var timing: TransferTiming {
    func seconds(_ info: CURLINFO) -> Double {
      var microseconds: curl_off_t = 0
      _ = haul_easy_getinfo_off_t(handle, info, &microseconds)
      return Double(microseconds) / 1_000_000
    }
    var connects = 0
    _ = haul_easy_getinfo_long(handle, CURLINFO_NUM_CONNECTS, &connects)
    let sent = seconds(CURLINFO_PRETRANSFER_TIME_T)
    return TransferTiming(
      waited: sent, firstByte: max(0, seconds(CURLINFO_STARTTRANSFER_TIME_T) - sent),
      answer: max(0, seconds(CURLINFO_TOTAL_TIME_T) - sent), openedConnection: connects > 0)
  }

  /// Whether libcurl got as far as sending the current transfer's request: it has a
  /// connection (its pre-transfer time is set), so it no longer waits for one.
  var hasStartedRequest: Bool {
    var microseconds: curl_off_t = 0
    _ = haul_easy_getinfo_off_t(handle, CURLINFO_PRETRANSFER_TIME_T, &microseconds)
    return microseconds > 0
  }
}

@available(*, unavailable)
extension CurlEasy: Sendable {}
