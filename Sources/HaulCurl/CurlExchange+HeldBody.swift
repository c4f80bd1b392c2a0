internal import CCurl
import Foundation
import HaulCore

extension CurlExchange {
  /// Sends the small `body` from memory: its bytes copied whole into a buffer of the
  /// exchange's (from the file, read once: an exchange sent again keeps them; or from the
  /// bytes the request holds) and given to libcurl as `CURLOPT_POSTFIELDS`, which libcurl
  /// rewinds by itself. The method stays the request's own. Returns `CURLE_READ_ERROR` when
  /// the file cannot be read whole, the reason kept in `failure`.
  func configureHeldBody(_ easy: CurlEasy, body: RequestBody, method: String) -> CURLcode {
    if heldBody == nil {
      guard let bytes = copyWholeBody(length: Int(body.length)) else { return CURLE_READ_ERROR }
      heldBody = bytes
    }
    var result = easy.set(CURLOPT_POSTFIELDSIZE_LARGE, body.length)
    if result == CURLE_OK {
      result = easy.set(CURLOPT_POSTFIELDS, pointer: heldBody?.baseAddress)
    }
    if result == CURLE_OK, method != "POST" {
      result = easy.set(CURLOPT_CUSTOMREQUEST, method)
    }
    return result
  }

  /// The body's `length` bytes in a buffer of their own, or `nil` (the reason kept in
  /// `failure`) when they cannot be read or the file is shorter, as the read callback would
  /// find mid-send.
  private func copyWholeBody(length: Int) -> UnsafeMutableRawBufferPointer? {
    let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: length, alignment: 16)
    var filled = 0
    while filled < length {
      let count = copyBody(
        into: bytes.baseAddress! + filled, count: length - filled, at: Int64(filled))
      if count <= 0 {
        failure =
          count < 0
          ? TransferError(
            .io, "cannot read the upload body: \(String(cString: strerror(errno)))")
          : TransferError(.io, "the upload body is shorter than its stated length")
        bytes.deallocate()
        return nil
      }
      filled += count
    }
    return bytes
  }
}
