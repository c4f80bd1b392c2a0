internal import CCurl
import Foundation
import HaulCore

extension CurlExchange {
  /// Sends the small `body` from memory: reads its range whole from the file (once:
  /// an exchange sent again keeps it) and gives it to libcurl as `CURLOPT_POSTFIELDS`, which
  /// libcurl rewinds by itself. The method stays the request's own. Returns
  /// `CURLE_READ_ERROR` when the file cannot be read whole, the reason kept in `failure`.
  func configureHeldBody(_ easy: CurlEasy, body: RequestBody, method: String) -> CURLcode {
    if heldBody == nil {
      guard let bytes = readWholeBody(from: body.offset, length: Int(body.length)) else {
        return CURLE_READ_ERROR
      }
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

  /// The body file's `length` bytes from `offset` in a buffer of their own, or `nil` (the
  /// reason kept in `failure`) when they cannot be read or the file is shorter, as the read
  /// callback would find mid-send.
  private func readWholeBody(from offset: Int64, length: Int) -> UnsafeMutableRawBufferPointer? {
    let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: length, alignment: 16)
    var filled = 0
    while filled < length {
      let count = pread(
        bodyFile, bytes.baseAddress! + filled, length - filled, off_t(offset) + off_t(filled))
      if count < 0, errno == EINTR { continue }
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
