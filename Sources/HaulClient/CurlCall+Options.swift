internal import CCurl
import Foundation

extension CurlCall {
  /// Sets every option of the call on `easy`: the address, the method and body, the
  /// headers (kept in `headers` until the call ends), and the callbacks, which get
  /// `context`, the unretained call. Returns the first failing option's code.
  ///
  /// The token goes only into the `Authorization` header. Proxies are off (`CURLOPT_PROXY`
  /// empty, whatever `http_proxy` says), so the token never reaches anyone but the daemon,
  /// and redirects are not followed (libcurl's default).
  func configure(
    _ easy: UnsafeMutableRawPointer, context: UnsafeMutableRawPointer,
    errorBuffer: UnsafeMutablePointer<CChar>,
    headers: inout UnsafeMutablePointer<curl_slist>?
  ) -> CURLcode {
    var result = CURLE_OK
    func check(_ code: CURLcode) {
      if result == CURLE_OK { result = code }
    }
    func set(_ option: CURLoption, _ value: Int) {
      check(haul_easy_setopt_long(easy, option, value))
    }
    func set(_ option: CURLoption, _ value: String) {
      check(value.withCString { haul_easy_setopt_string(easy, option, $0) })
    }
    func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer?) {
      check(haul_easy_setopt_pointer(easy, option, pointer))
    }

    var lines = ["Accept: \(request.accept)", "Expect:"]
    switch address {
    case .socket(let path):
      set(CURLOPT_UNIX_SOCKET_PATH, path)
      set(CURLOPT_URL, "http://localhost" + request.path)
    case .tcp(let baseURL, let token):
      var base = baseURL.absoluteString
      while base.hasSuffix("/") { base.removeLast() }
      set(CURLOPT_URL, base + request.path)
      lines.append("Authorization: Bearer \(token)")
      set(CURLOPT_TCP_KEEPALIVE, 1)
    }
    set(CURLOPT_PROTOCOLS_STR, "http,https")
    set(CURLOPT_PROXY, "")
    set(CURLOPT_NOSIGNAL, 1)
    set(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1)
    set(CURLOPT_CONNECTTIMEOUT_MS, Self.connectTimeoutMilliseconds)
    set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
    check(haul_easy_setopt_write_callback(easy, CURLOPT_WRITEFUNCTION, Self.writeCallback))
    set(CURLOPT_WRITEDATA, pointer: context)
    set(CURLOPT_NOPROGRESS, 0)
    check(
      haul_easy_setopt_xferinfo_callback(easy, CURLOPT_XFERINFOFUNCTION, Self.progressCallback))
    set(CURLOPT_XFERINFODATA, pointer: context)

    if request.method != "GET" && request.method != "POST" {
      set(CURLOPT_CUSTOMREQUEST, request.method)
    }
    if let body = request.body {
      lines.append("Content-Type: application/json")
      check(haul_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
      // libcurl copies the body, so it need not outlive this function.
      check(
        body.withUnsafeBytes { bytes in
          guard let start = bytes.baseAddress else {
            return haul_easy_setopt_string(easy, CURLOPT_COPYPOSTFIELDS, "")
          }
          return haul_easy_setopt_pointer(
            easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: start))
        })
    } else if request.method == "POST" {
      set(CURLOPT_POSTFIELDSIZE, 0)
      set(CURLOPT_COPYPOSTFIELDS, "")
    }
    if let lastEventID = request.lastEventID {
      lines.append("Last-Event-ID: \(lastEventID)")
    }
    if request.accept == "text/event-stream" {
      lines.append("Cache-Control: no-cache")
    }

    for line in lines {
      guard let appended = curl_slist_append(headers, line) else { return CURLE_OUT_OF_MEMORY }
      headers = appended
    }
    check(haul_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headers))
    return result
  }
}
