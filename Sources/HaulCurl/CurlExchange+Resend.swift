internal import CCurl
import HaulCore

extension CurlExchange {
  /// Whether an exchange libcurl ended with `code` goes out once more, at once, waiting for
  /// `100 Continue` this time: its body went without waiting, and the connection failed
  /// before any response head reached the sink. That is how a server refusing the upload
  /// at once looks when it closes with the body unread: the reset cost libcurl the answer
  /// (lighttpd, a 409 for a missing folder). Sent again waiting, the body stays back and
  /// the refusal arrives; a server that takes the upload gets the whole body from its
  /// first byte. The re-send belongs to the same attempt: no retry is used up.
  func resendsWithExpect(after code: CURLcode) -> Bool {
    guard sendsBodyAtOnce, failure == nil, head == nil else { return false }
    switch code {
    // libcurl 7.88's codes for a connection reset or closed while sending, while waiting
    // for the answer, or before any byte of it.
    case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING: return true
    default: return false
    }
  }

  /// Readies the exchange to be sent again on `easy` with `Expect: 100-continue`: the body
  /// rewound to its first byte, the response and the stall clock as before the first
  /// send, the header list rebuilt. Returns the failing option's code, if any.
  func prepareResend(on easy: CurlEasy) -> CURLcode {
    sendsBodyAtOnce = false
    parser = ResponseHeadParser(maxBytes: parser.maxBytes, keepsCookies: parser.keepsCookies)
    acceptsBody = false
    bodyBytes = 0
    receivedBytes = 0
    uploadOffset = 0
    movedBytes = -1
    lastMovement = 0
    isPaused = false
    easy.errorBuffer[0] = 0
    releaseHeaderList()
    guard buildHeaderList() else { return CURLE_OUT_OF_MEMORY }
    return easy.set(CURLOPT_HTTPHEADER, list: headerList)
  }
}
