internal import CCurl
import Foundation
import HaulCore

/// How a libcurl result code becomes a `TransferError` code: one row per kind of failure,
/// each with why it belongs there. The scheduler's retry rules read only the code.
///
/// Failures a callback detected (the sink threw, the header block was too large, the upload
/// file was unreadable) never come through here: the exchange keeps them in `failure` and
/// reports them as they are, whatever code libcurl returned because of the abort.
enum CurlErrorMapping {
  static func code(for result: CURLcode) -> TransferError.Code {
    switch result {
    // The server could not be reached: DNS, refused, unreachable. Retried; counts towards
    // "the server is down".
    case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT,
      CURLE_INTERFACE_FAILED, CURLE_NO_CONNECTION_AVAILABLE:
      return .connection
    // The connection broke mid-exchange (reset, closed) or closed before any reply.
    case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_AGAIN:
      return .connection
    // The connect timeout (stalls are detected by the loop, as `failure`).
    case CURLE_OPERATION_TIMEDOUT:
      return .timeout
    // The handshake failed or the peer's certificate was not trusted for this name.
    case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
      CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR,
      CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE,
      CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED,
      CURLE_USE_SSL_FAILED, CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CLIENTCERT:
      return .tls
    // The server broke HTTP: body shorter than Content-Length, unparsable status or
    // headers, bad chunking or content encoding, HTTP/2 framing errors.
    case CURLE_PARTIAL_FILE, CURLE_WEIRD_SERVER_REPLY, CURLE_BAD_CONTENT_ENCODING,
      CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_HTTP3, CURLE_RANGE_ERROR,
      CURLE_BAD_DOWNLOAD_RESUME:
      return .protocol
    // libcurl refused the URL; core only builds http(s) URLs, so the request is malformed.
    case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
      return .protocol
    // We aborted the exchange from a callback without a recorded reason: only cancellation.
    case CURLE_ABORTED_BY_CALLBACK:
      return .cancelled
    // A callback refused data without a recorded reason; a local write problem.
    case CURLE_WRITE_ERROR, CURLE_READ_ERROR, CURLE_SEND_FAIL_REWIND:
      return .io
    // Anything else is a failure of this connection; retrying on a new one is the best bet.
    default:
      return .connection
    }
  }

  /// The error for a failed exchange: the code from the table and a message from libcurl's
  /// description and error buffer. The error buffer is left out if it could hold a secret
  /// (a request header value or the URL's password), so messages never carry one.
  static func error(
    for result: CURLcode, detail: String?, request: TransferRequest
  ) -> TransferError {
    var code = code(for: result)
    // libcurl 7.88 reports bad chunked framing as a receive error; only its text tells.
    if result == CURLE_RECV_ERROR, let detail, detail.contains("chunked-encoding") {
      code = .protocol
    }
    var message = String(cString: curl_easy_strerror(result))
    if let detail, !detail.isEmpty, detail != message, !mayReveal(detail, request) {
      message += ": " + detail.trimmingASCIIWhitespace()
    }
    return TransferError(code, message)
  }

  private static func mayReveal(_ text: String, _ request: TransferRequest) -> Bool {
    var secrets = request.headers.map(\.value)
    if let password = request.url.password { secrets.append(password) }
    if let user = request.url.user { secrets.append(user) }
    return secrets.contains { !$0.isEmpty && text.contains($0) }
  }
}
