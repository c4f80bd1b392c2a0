internal import CCurl
import Foundation
import HaulCore

/// The settings every exchange's easy handle gets, fixed when the transport is created.
struct CurlSettings: Sendable {
  /// `CURLOPT_BUFFERSIZE`: the most bytes read from the socket at once (libcurl 7.88 still
  /// hands the write callback at most 16 KiB per call). Larger reads mean fewer system calls
  /// per byte; of the sizes tried, this one costs the least CPU per byte downloaded
  /// (Benchmarks/results/HISTORY.md).
  var receiveBufferSize = 512 * 1024
  /// `CURLOPT_UPLOAD_BUFFERSIZE`: the most upload bytes read from the file per call; of the
  /// sizes tried, the fastest against a server that keeps up, for little more CPU than the
  /// largest (Benchmarks/results/HISTORY.md).
  var uploadBufferSize = 128 * 1024
  /// The largest body sent at once, without waiting for `100 Continue`; a larger one sends
  /// `Expect: 100-continue` first. 1 MiB is libcurl's own limit for POST bodies: up to it, a
  /// body refused with a reset is cheaper to send again (`resendsWithExpect`) than a round
  /// trip on every upload.
  var sendsAtOnceUpTo: Int64 = 1 << 20
  /// A body smaller than this is read whole before its request goes out and handed to
  /// libcurl in memory (`CURLOPT_POSTFIELDS`), which sends a body below 64 KiB in the same
  /// write as the request head (libcurl 7.88's `MAX_INITIAL_POST_SIZE`): one `sendto`
  /// instead of two, and the server wakes once, which is most of a small upload's cost
  /// (Benchmarks/results/HISTORY.md). Larger bodies,
  /// and every body under `--max-rate` (its pauses need the read callback), stream from
  /// the file.
  var sendsWithHeadBelow: Int64 = 64 << 10
  /// Which proxy each exchange goes through.
  var proxyRules = ProxyRules.direct
  /// A PEM file trusted in addition to the system CAs (`CURLOPT_CAINFO`), or `nil`.
  var extraCACertificates: String?
  /// The system's hashed CA directory (`CURLOPT_CAPATH`), used alongside the extra file so
  /// that `--cacert` adds to the system CAs instead of replacing them.
  var systemCAPath: String
  /// Whether the system CAs are read from `systemCAPath` alone, without libcurl's default
  /// bundle file (`CURLOPT_CAINFO`): set when libcurl was built with that directory and it
  /// exists (Debian's libcurl names both, and `update-ca-certificates` fills both with the
  /// same CAs). Why: with a CA directory set, libcurl 7.88 caches no certificate store
  /// (`CURLOPT_CA_CACHE_TIMEOUT` needs a file alone), so given the bundle too it parses every
  /// CA in it for each new TLS connection; from the directory it reads only the issuers a
  /// server's chain names, as `--cacert` already does.
  var systemCAsFromDirectory = false
}

extension CurlExchange {
  /// Sets every option for this exchange on `easy`. `context` is the retained pointer to
  /// this exchange that libcurl will hold as `CURLOPT_PRIVATE`.
  ///
  /// A handle that ran a plain GET keeps the options every exchange shares (see
  /// `CurlEasy.holdsSharedOptions`), so only this exchange's own are set again.
  ///
  /// Returns the first failing option's code; the handle is then reset by the caller.
  func configure(
    _ easy: CurlEasy, settings: CurlSettings, context: UnsafeMutableRawPointer
  ) -> CURLcode {
    var result = CURLE_OK
    func check(_ code: CURLcode) {
      if result == CURLE_OK { result = code }
    }
    if !easy.holdsSharedOptions {
      check(setSharedOptions(easy, settings: settings))
    }

    check(easy.setURL(request.url.absoluteString))
    check(easy.set(CURLOPT_PRIVATE, pointer: context))
    check(easy.set(CURLOPT_HEADERDATA, pointer: context))
    check(easy.set(CURLOPT_WRITEDATA, pointer: context))
    // The pre-request callback (`connectionReady`) learns what a new https connection agreed
    // on; for any other URL it has nothing to tell (no gate, no route, no TLS to say h2), so a
    // handle that has not run an https exchange since its reset goes without it.
    if isHTTPS || easy.hearsConnections {
      if !easy.hearsConnections {
        check(easy.set(CURLOPT_PREREQFUNCTION, prereq: CurlCallbacks.prereq))
        easy.hearsConnections = true
      }
      check(easy.set(CURLOPT_PREREQDATA, pointer: context))
    }
    check(configureProxy(easy, rules: settings.proxyRules))

    // Timeouts: curl enforces the connect timeout; the loop enforces the stall timeout,
    // timing silence from the last byte (`checkStall`). curl's low-speed check is
    // off: it averages the rate over its window, so it fails a slow drip whose silences are
    // each shorter than the timeout.
    check(easy.set(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(request.connectTimeout)))
    // Over HTTP/2 (https servers that offer it), wait for an opening connection and share it
    // rather than opening another, so that parallel downloads become streams of one
    // connection.
    // Only for https: plain http is always HTTP/1.1 here (no h2c), and there curl 7.88 would
    // queue each exchange behind a busy connection instead of opening another.
    check(easy.set(CURLOPT_PIPEWAIT, scheme == "https" ? 1 : 0))
    // Uploads go over HTTP/1.1. apache2 and lighttpd answer a PUT they refuse at once (409
    // for a missing folder) and reset the HTTP/2 stream; libcurl 7.88 then drops that
    // answer and fails with CURLE_HTTP2_STREAM, which would make a refusal a retried
    // `protocol` error. Over HTTP/1.1 the answer arrives. The cost is one connection per
    // parallel upload (docs/behaviour.md, HTTP/2).
    if goesOverHTTP11 {
      check(easy.set(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1))
      offersHTTP2 = false
    }

    check(configureMethod(easy, settings: settings))
    guard result == CURLE_OK else { return result }
    let length = request.body?.length ?? 0
    sendsBodyAtOnce = length > 0 && length <= settings.sendsAtOnceUpTo
    guard buildHeaderList(sharing: headerCache) else { return CURLE_OUT_OF_MEMORY }
    return easy.set(CURLOPT_HTTPHEADER, list: headerList)
  }

  /// Whether this exchange leaves its handle with nothing but the shared options and its
  /// own per-exchange ones, which the next exchange overwrites: a GET without a body.
  var leavesHandleReusable: Bool {
    request.body == nil && method == "GET"
  }

  /// The options every exchange shares: callbacks, safety, buffers, the CA files.
  private func setSharedOptions(_ easy: CurlEasy, settings: CurlSettings) -> CURLcode {
    var result = CURLE_OK
    func check(_ code: CURLcode) {
      if result == CURLE_OK { result = code }
    }
    check(easy.set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(easy.errorBuffer)))
    check(easy.set(CURLOPT_HEADERFUNCTION, write: CurlCallbacks.header))
    check(easy.set(CURLOPT_WRITEFUNCTION, write: CurlCallbacks.write))

    // Safety: http(s) only, no redirect following (core does it), no signals from the
    // resolver, full TLS verification, nothing read from netrc, no
    // compression asked for or decoded (no ACCEPT_ENCODING), no cookie engine.
    check(easy.set(CURLOPT_PROTOCOLS_STR, "http,https"))
    check(easy.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https"))
    check(easy.set(CURLOPT_FOLLOWLOCATION, 0))
    check(easy.set(CURLOPT_NOSIGNAL, 1))
    check(easy.set(CURLOPT_SSL_VERIFYPEER, 1))
    check(easy.set(CURLOPT_SSL_VERIFYHOST, 2))
    if let extra = settings.extraCACertificates {
      check(easy.set(CURLOPT_CAINFO, extra))
      check(easy.set(CURLOPT_CAPATH, settings.systemCAPath))
      // An https proxy's own certificate is checked against the same CAs.
      check(easy.set(CURLOPT_PROXY_CAINFO, extra))
      check(easy.set(CURLOPT_PROXY_CAPATH, settings.systemCAPath))
    } else if settings.systemCAsFromDirectory {
      check(easy.clear(CURLOPT_CAINFO))
      check(easy.set(CURLOPT_CAPATH, settings.systemCAPath))
      check(easy.clear(CURLOPT_PROXY_CAINFO))
      check(easy.set(CURLOPT_PROXY_CAPATH, settings.systemCAPath))
    }
    check(easy.set(CURLOPT_NETRC, Int(CURL_NETRC_IGNORED.rawValue)))
    // The proxy is chosen per exchange (`configureProxy`); libcurl never reports the
    // proxy's `CONNECT` answer as if it were the origin's head.
    check(easy.set(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1))
    check(easy.set(CURLOPT_HTTP_CONTENT_DECODING, 0))

    check(easy.set(CURLOPT_BUFFERSIZE, settings.receiveBufferSize))
    check(easy.set(CURLOPT_UPLOAD_BUFFERSIZE, settings.uploadBufferSize))
    return result
  }

  /// Sets the method; PUT and POST stream their body (empty when there is none) from the
  /// file through the read callback, with a seek callback so libcurl can rewind it, or
  /// send a small one from memory (`configureHeldBody`).
  private func configureMethod(_ easy: CurlEasy, settings: CurlSettings) -> CURLcode {
    if request.body == nil {
      switch method {
      case "GET": return easy.set(CURLOPT_HTTPGET, 1)
      case "HEAD": return easy.set(CURLOPT_NOBODY, 1)
      case "PUT", "POST": break
      default: return easy.set(CURLOPT_CUSTOMREQUEST, method)
      }
    }
    if let body = request.body, body.length > 0, body.length < settings.sendsWithHeadBelow,
      rateLimiter == nil
    {
      return configureHeldBody(easy, body: body, method: method)
    }
    let context = Unmanaged.passUnretained(self).toOpaque()
    let length = request.body?.length ?? 0
    var result = CURLE_OK
    func check(_ code: CURLcode) {
      if result == CURLE_OK { result = code }
    }
    check(easy.set(CURLOPT_READFUNCTION, read: CurlCallbacks.read))
    check(easy.set(CURLOPT_READDATA, pointer: context))
    check(easy.set(CURLOPT_SEEKFUNCTION, seek: CurlCallbacks.seek))
    check(easy.set(CURLOPT_SEEKDATA, pointer: context))
    if method == "POST" {
      check(easy.set(CURLOPT_POST, 1))
      check(easy.set(CURLOPT_POSTFIELDSIZE_LARGE, length))
    } else {
      check(easy.set(CURLOPT_UPLOAD, 1))
      check(easy.set(CURLOPT_INFILESIZE_LARGE, length))
      if method != "PUT" { check(easy.set(CURLOPT_CUSTOMREQUEST, method)) }
    }
    return result
  }

  /// Builds `headerList`: the transfer's own headers, `Range`/`If-Range`, and the overrides
  /// of libcurl defaults haul does not want. Returns `false` if libcurl ran out of memory.
  ///
  /// A plain GET (no range, no body) takes `cache`'s list when its headers are the cached
  /// ones, and gives the cache its own list when none is kept yet.
  func buildHeaderList(sharing cache: CurlHeaderListCache? = nil) -> Bool {
    let plainGet = request.range == nil && request.body == nil && request.method == "GET"
    if plainGet, let shared = cache?.list(for: request.headers) {
      headerList = shared
      ownsHeaderList = false
      return true
    }
    ownsHeaderList = true
    var lines: [String] = []
    for field in request.headers {
      // libcurl sends `Name;` as an empty header; `Name:` would remove the header instead.
      lines.append(field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)")
    }
    // haul names itself unless the transfer's headers do. Given here rather than as
    // `CURLOPT_USERAGENT`, which libcurl 7.88 formats into the request twice, a byte at a
    // time through its printf.
    if !request.headers.contains(where: { $0.hasName("User-Agent") }) {
      lines.append(Self.userAgentLine)
    }
    // No `Accept: */*` (libcurl's default): a request without `Accept` accepts any type
    // (RFC 9110 §12.5.1), and libcurl 7.88 formats every byte of a header line through its
    // printf. `Accept:` only removes it; a transfer's own `Accept` stays.
    if !request.headers.contains(where: { $0.hasName("Accept") }) {
      lines.append("Accept:")
    }
    if let range = request.range {
      lines.append("Range: \(range.headerValue)")
      if let ifRange = request.ifRange { lines.append("If-Range: \(ifRange)") }
    }
    if goesOverHTTP11 {
      // A large body waits for `100 Continue`, so that a server refusing the upload answers
      // before the body goes out: lighttpd answers a PUT to a missing folder with 409 and
      // closes the connection with the body unread, and the reset costs libcurl the answer
      // (a retried `connection` error). A small body goes at once and, refused that way, is
      // sent again waiting (`resendsWithExpect`); an empty one has nothing to wait for.
      // libcurl sends the body anyway after 1 s without an answer.
      let length = request.body?.length ?? 0
      lines.append(length > 0 && !sendsBodyAtOnce ? "Expect: 100-continue" : "Expect:")
      if request.headers.value(for: "Content-Type") == nil {
        // libcurl would call the file a form (`application/x-www-form-urlencoded`): a POST
        // names it a plain file, and a PUT sent from memory (`heldBody`) names no type, as
        // one streamed from the file does.
        if method == "POST" {
          lines.append("Content-Type: application/octet-stream")
        } else if heldBody != nil {
          lines.append("Content-Type:")
        }
      }
    }
    for line in lines {
      guard let appended = line.withCString({ curl_slist_append(headerList, $0) }) else {
        return false
      }
      headerList = appended
    }
    if plainGet, let cache, cache.keep(headerList, for: request.headers) {
      ownsHeaderList = false
    }
    return true
  }

  /// The `User-Agent` every request carries unless its own headers set one.
  static let userAgentLine = "User-Agent: " + HaulVersion.userAgent

  private static func milliseconds(_ seconds: Double) -> Int {
    guard seconds.isFinite, seconds > 0 else { return 0 }
    return max(1, Int(min(seconds * 1000, Double(Int32.max)).rounded(.up)))
  }
}
