import Foundation
import HaulCore

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension TransferError {
  /// The transfer error for a failure that URLSession reported.
  ///
  /// corelibs turns only a few libcurl results into specific `URLError` codes
  /// (`_EasyHandle.urlErrorCode(for:)` in `MultiHandle.swift`); every other libcurl error,
  /// TLS failures and short bodies included, arrives as `.unknown` with libcurl's own message
  /// as its description. Those are sorted by that message (`curlCategory(of:)`).
  ///
  /// - `cannotConnectToHost` → `connection`: libcurl failed to connect with `ECONNREFUSED`
  /// - `networkConnectionLost` → `connection`: the peer reset the connection mid-exchange
  /// - `cannotFindHost`, `dnsLookupFailed` → `connection`: the name did not resolve
  /// - `notConnectedToInternet` → `connection`: no route at all
  /// - `timedOut` → `timeout`: corelibs' idle timer: no callback for the stall timeout
  /// - `secureConnectionFailed`, `serverCertificate*`, `clientCertificate*` → `tls`: handshake or
  ///   verification failed (Darwin's codes; corelibs sends `unknown`)
  /// - `badServerResponse` → `protocol`: libcurl got nothing back (`CURLE_GOT_NOTHING`)
  /// - `cannotDecodeContentData`, `cannotDecodeRawData`, `cannotParseResponse` → `protocol`: the
  ///   body or head could not be read
  /// - `dataLengthExceedsMaximum` → `protocol`: a body URLSession refused to hold
  /// - `unsupportedURL` → `protocol`: haul's URLs are all http(s), so this is libcurl refusing the
  ///   reply: an HTTP/0.9 answer, an unsupported status code
  /// - `fileDoesNotExist`, `noPermissionsToReadFile` → `io`: the upload's file could not be opened
  /// - `cancelled` → `cancelled`: the task was cancelled (the caller decides when that is a
  ///   success)
  /// - `unknown` → by libcurl's message: corelibs' catch-all for every other libcurl error
  /// - anything else → `connection`: the exchange did not complete; worth a retry
  ///
  /// Messages name the failure and libcurl's text, never a header value: libcurl's error
  /// buffer holds host names, ports and byte counts, not request headers.
  init(urlSessionError error: any Error) {
    let nsError = error as NSError
    let detail = Self.curlMessage(of: nsError)
    guard nsError.domain == NSURLErrorDomain else {
      self.init(.connection, "URLSession failed: \(detail)")
      return
    }
    switch URLError.Code(rawValue: nsError.code) {
    case .cannotConnectToHost:
      self.init(.connection, "connection refused: \(detail)")
    case .networkConnectionLost:
      self.init(.connection, "connection lost: \(detail)")
    case .cannotFindHost, .dnsLookupFailed:
      self.init(.connection, "host name not resolved: \(detail)")
    case .notConnectedToInternet:
      self.init(.connection, "not connected: \(detail)")
    case .timedOut:
      self.init(.timeout, "no byte moved within the stall timeout")
    case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
      .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid,
      .clientCertificateRejected, .clientCertificateRequired:
      self.init(.tls, "TLS failed: \(detail)")
    case .badServerResponse:
      self.init(.protocol, "bad server response: \(detail)")
    case .cannotDecodeContentData, .cannotDecodeRawData, .cannotParseResponse:
      self.init(.protocol, "unreadable response: \(detail)")
    case .dataLengthExceedsMaximum:
      self.init(.protocol, "response refused by URLSession: \(detail)")
    case .unsupportedURL:
      self.init(.protocol, "not an HTTP response: \(detail)")
    case .fileDoesNotExist, .noPermissionsToReadFile:
      self.init(.io, "cannot read the upload's file: \(detail)")
    case .cancelled:
      self.init(.cancelled, "cancelled")
    case .unknown:
      self.init(Self.curlCategory(of: detail), detail)
    default:
      self.init(.connection, "URLSession error \(nsError.code): \(detail)")
    }
  }

  /// Whether `error` is libcurl's `CURLE_OUT_OF_MEMORY`, which corelibs passes on as
  /// `unknown` with libcurl's text "Out of memory"; before a head, that is a header line
  /// over libcurl's limit (`TransferError.headerLineTooLong`).
  static func isLibcurlOutOfMemory(_ error: any Error) -> Bool {
    let nsError = error as NSError
    return nsError.domain == NSURLErrorDomain && nsError.code == URLError.Code.unknown.rawValue
      && curlMessage(of: nsError).hasPrefix("Out of memory")
  }

  /// libcurl's message, which corelibs stores as the error's description (and as that of its
  /// underlying error); at most 300 characters of it.
  static func curlMessage(of error: NSError) -> String {
    let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError
    let text = (underlying ?? error).localizedDescription.trimmingASCIIWhitespace()
    return String(text.prefix(300))
  }

  /// The code for a libcurl error that corelibs reported as `unknown`, from libcurl's message
  /// (libcurl's `failf` texts, stable across its versions; see `lib/strerror.c` and the
  /// `failf` calls in `lib/connect.c`, `lib/vtls/openssl.c`, `lib/http.c`, `lib/transfer.c`).
  /// Messages that name a host start with their phrase, so the phrase is matched as a prefix
  /// first and a host name (`ssl.example.com`) cannot pass for a TLS failure.
  ///
  /// - starts `Could not resolve`, `Couldn't resolve`, `Failed to connect`, `Recv failure`,
  ///   `Send failure`, `Connection` → `connection`: DNS, refused with another errno, unreachable,
  ///   reset
  /// - holds `SSL`, `TLS` (as written) or `certificate` → `tls`: OpenSSL handshake or verification
  ///   (`CURLE_PEER_FAILED_VERIFICATION`, `CURLE_SSL_*`)
  /// - holds `timed out`, `timeout` → `timeout`: libcurl's own connect or resolve timeout
  /// - holds `transfer closed`, `chunk`, `header`, `reply`, `encoding`, `http`, `writing`,
  ///   `too large`, `content-length`, `response code` → `protocol`: short body, bad chunking,
  ///   malformed or oversized head (corelibs aborts on a head it cannot parse:
  ///   "Failed writing header"; libcurl refuses "Invalid Content-Length"), undecodable body
  /// - anything else → `connection`: the exchange did not complete; worth a retry
  static func curlCategory(of message: String) -> Code {
    let connectionPhrases = [
      "Could not resolve", "Couldn't resolve", "Failed to connect", "Recv failure",
      "Send failure", "Connection",
    ]
    if connectionPhrases.contains(where: { message.hasPrefix($0) }) { return .connection }
    let text = message.lowercased()
    func mentions(_ words: String...) -> Bool { words.contains { text.contains($0) } }
    if message.contains("SSL") || message.contains("TLS") || mentions("certificate") {
      return .tls
    }
    if mentions("timed out", "timeout") { return .timeout }
    if mentions(
      "transfer closed", "chunk", "header", "reply", "encoding", "http", "writing", "too large",
      "content-length", "response code")
    {
      return .protocol
    }
    return .connection
  }
}
