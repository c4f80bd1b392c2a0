internal import CCurl

extension CurlCall {
  /// `CURLOPT_WRITEFUNCTION`: one chunk of the answer's body per call. `context` is the
  /// unretained call (`CurlCall`'s threading note says why that is safe); returning less
  /// than the chunk's length makes libcurl stop the transfer.
  static let writeCallback: curl_write_callback = { buffer, size, count, context in
    let length = size * count
    guard let context else { return 0 }
    let chunk = UnsafeRawBufferPointer(start: buffer, count: length)
    let call = Unmanaged<CurlCall>.fromOpaque(context).takeUnretainedValue()
    return call.receive(chunk) ? length : 0
  }

  /// `CURLOPT_XFERINFOFUNCTION`: called by libcurl while the transfer runs; returning
  /// non-zero once the call is cancelled makes libcurl stop it
  /// (`CURLE_ABORTED_BY_CALLBACK`). `context` is the unretained call.
  static let progressCallback: curl_xferinfo_callback = { context, _, _, _, _ in
    guard let context else { return 0 }
    let call = Unmanaged<CurlCall>.fromOpaque(context).takeUnretainedValue()
    return call.control.isCancelled ? 1 : 0
  }
}
