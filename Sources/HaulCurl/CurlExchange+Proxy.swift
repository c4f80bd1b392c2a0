internal import CCurl
import Foundation
import HaulCore

extension CurlExchange {
  /// Sets this exchange's proxy from `rules`: `CURLOPT_PROXY` to the proxy chosen for this
  /// URL, or to "" (no proxy, and no proxy variable read by libcurl) to go direct.
  /// `CURLOPT_NOPROXY` is "" so that libcurl never second-guesses the choice with
  /// `no_proxy`. https goes through a `CONNECT` tunnel (libcurl's rule for https through
  /// any proxy) with the origin's certificate verified end to end; plain http is forwarded.
  ///
  /// Without any proxy in `rules`, the shared options already go direct
  /// (`setDirectProxyOptions`), so a handle that keeps them needs nothing set.
  func configureProxy(_ easy: CurlEasy, rules: ProxyRules) -> CURLcode {
    guard !rules.isDirect else {
      proxy = nil
      return easy.holdsSharedOptions ? CURLE_OK : setDirectProxyOptions(easy)
    }
    proxy = rules.proxy(for: request.url)
    var result = CURLE_OK
    func check(_ code: CURLcode) {
      if result == CURLE_OK { result = code }
    }
    check(easy.set(CURLOPT_PROXY, proxy?.url ?? ""))
    check(easy.set(CURLOPT_NOPROXY, ""))
    check(easy.set(CURLOPT_HTTPPROXYTUNNEL, speaksHTTPToProxy && isHTTPS ? 1 : 0))
    return result
  }

  /// Goes direct: no proxy, no proxy variable read by libcurl, no tunnel.
  func setDirectProxyOptions(_ easy: CurlEasy) -> CURLcode {
    var result = easy.set(CURLOPT_PROXY, "")
    if result == CURLE_OK { result = easy.set(CURLOPT_NOPROXY, "") }
    if result == CURLE_OK { result = easy.set(CURLOPT_HTTPPROXYTUNNEL, 0) }
    return result
  }

  /// Whether the exchange's proxy is an HTTP one (`http://`, `https://`), which answers in
  /// HTTP itself; a SOCKS proxy only relays bytes.
  private var speaksHTTPToProxy: Bool { proxy?.kind == .http || proxy?.kind == .https }

  /// A 407 to a request an HTTP proxy forwards (plain http) can only be the proxy's own: it
  /// fails the exchange as the proxy's refusal instead of passing for the origin's status.
  /// (Inside a tunnel, and through SOCKS, every head is the origin's.) Returns the failure,
  /// or `nil` for any other head.
  func proxyRefusal(_ head: ResponseHead) -> TransferError? {
    guard let proxy, speaksHTTPToProxy, !isHTTPS, head.status == 407 else { return nil }
    return TransferError(.proxy, "the proxy \(proxy) asks for authentication (407)")
  }

  /// The error for an exchange libcurl failed with `code`: through a proxy, a failure to
  /// reach it or a `CONNECT` it answered with anything but 2xx is the proxy's (`proxy`,
  /// naming it and its answer); anything else as `CurlErrorMapping` maps it, with the proxy
  /// named. Proxy credentials never appear.
  func error(for code: CURLcode, easy: CurlEasy) -> TransferError {
    var detail = easy.errorDetail
    if let proxy, let text = detail, proxy.secrets.contains(where: { text.contains($0) }) {
      detail = nil
    }
    let mapped = CurlErrorMapping.error(for: code, detail: detail, request: request)
    guard let proxy else { return mapped }
    let connectCode = easy.proxyConnectCode
    if connectCode >= 300 {
      return TransferError(.proxy, "the proxy \(proxy) refused the tunnel (CONNECT \(connectCode))")
    }
    switch code {
    case CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT:
      return TransferError(.proxy, "cannot reach the proxy \(proxy): \(mapped.message)")
    default:
      return TransferError(mapped.code, "\(mapped.message) (through the proxy \(proxy))")
    }
  }
}

extension CurlEasy {
  /// The status of the proxy's answer to the last `CONNECT` (`CURLINFO_HTTP_CONNECTCODE`),
  /// 0 when there was none.
  var proxyConnectCode: Int {
    var code = 0
    _ = haul_easy_getinfo_long(handle, CURLINFO_HTTP_CONNECTCODE, &code)
    return code
  }
}
