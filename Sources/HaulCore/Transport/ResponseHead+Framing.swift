extension ResponseHead {
  /// Why this head's framing cannot be trusted, as the `protocol` error a transport fails the
  /// exchange with, or `nil` when it can.
  ///
  /// Every transport applies it where it delivers a head, so that each cause gives the same
  /// code whichever transport read it (RFC 9110 §8.6, §15):
  /// - the status is not a three-digit code from 100 to 599 (a status of 2000);
  /// - a `Content-Length` value is not a non-negative decimal number that fits 63 bits
  ///   (`ten`, `-10`, 20 digits);
  /// - the `Content-Length` values differ, within one field (`10, 12`) or across several
  ///   fields (a transport that joins repeated fields with `, ` gives the first form).
  ///   Repeats of one value (`10, 10`) are the same length and accepted, as RFC 9110 allows;
  /// - `Content-Length` beside `Transfer-Encoding`: RFC 9112 §6.3 lets the encoding win but
  ///   says such a message ought to be handled as an error (a sign of request smuggling or
  ///   response splitting), as a body framed two ways cannot be trusted either way.
  ///
  /// A transport keeps every `Content-Length` field for this (`ResponseHead.fieldsRead`).
  /// The values are read as bytes: this runs once per response, on the transport's thread.
  package var framingProblem: TransferError? {
    guard (100...599).contains(status) else {
      return TransferError(.protocol, "the response status \(status) is not an HTTP status")
    }
    // The fields are read through their indices, in place: a loop over the elements would
    // copy each field's strings.
    var transferEncoding = false
    var contentLength = false
    for index in headers.indices {
      if headers[index].hasName("transfer-encoding") {
        transferEncoding = true
      } else if headers[index].hasName("content-length") {
        contentLength = true
      }
    }
    if transferEncoding, contentLength {
      return TransferError(
        .protocol, "the response has both Content-Length and Transfer-Encoding")
    }
    guard contentLength else { return nil }
    var length: Int64?
    for index in headers.indices where headers[index].hasName("content-length") {
      var value = headers[index].value
      let problem: TransferError? = value.withUTF8 { bytes in
        var start = 0
        while start <= bytes.count {
          var end = start
          while end < bytes.count, bytes[end] != UInt8(ascii: ",") { end += 1 }
          switch Self.decimal(bytes[start..<end]) {
          case .success(let item):
            if let length, length != item {
              return TransferError(
                .protocol, "Content-Length has differing values (\(length) and \(item))")
            }
            length = item
          case .failure(let error):
            return error
          }
          start = end + 1
        }
        return nil
      }
      if let problem { return problem }
    }
    return nil
  }

  /// One item of a `Content-Length` value: decimal digits between optional spaces and tabs.
  private static func decimal(_ item: Slice<UnsafeBufferPointer<UInt8>>) -> Result<
    Int64, TransferError
  > {
    func isSpace(_ byte: UInt8) -> Bool {
      byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
        || byte == UInt8(ascii: "\n")
    }
    var start = item.startIndex
    var end = item.endIndex
    while start < end, isSpace(item[start]) { start += 1 }
    while end > start, isSpace(item[end - 1]) { end -= 1 }
    guard start < end, item[start..<end].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
      return .failure(
        TransferError(.protocol, "Content-Length is not a non-negative decimal number"))
    }
    var value: Int64 = 0
    for byte in item[start..<end] {
      let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
      let (sum, overflowSum) = times.addingReportingOverflow(Int64(byte - 0x30))
      guard !overflowTimes, !overflowSum else {
        let text = String(decoding: item[start..<end].prefix(40), as: UTF8.self)
        return .failure(TransferError(.protocol, "Content-Length \(text) is too large"))
      }
      value = sum
    }
    return .success(value)
  }
}
