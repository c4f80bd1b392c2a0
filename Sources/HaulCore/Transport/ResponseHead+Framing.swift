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
  ///   Repeats of one value (`10, 10`) are the same length and accepted, as RFC 9110 allows.
  ///
  /// A transport keeps every `Content-Length` field for this (`ResponseHead.fieldsRead`).
  package var framingProblem: TransferError? {
    guard (100...599).contains(status) else {
      return TransferError(.protocol, "the response status \(status) is not an HTTP status")
    }
    var length: Int64?
    for field in headers where field.hasName("content-length") {
      for item in field.value.split(separator: ",", omittingEmptySubsequences: false) {
        let text = String(item).trimmingASCIIWhitespace()
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
          return TransferError(.protocol, "Content-Length is not a non-negative decimal number")
        }
        guard let value = Int64(text) else {
          return TransferError(.protocol, "Content-Length \(text.prefix(40)) is too large")
        }
        if let length, length != value {
          return TransferError(
            .protocol, "Content-Length has differing values (\(length) and \(value))")
        }
        length = value
      }
    }
    return nil
  }
}
