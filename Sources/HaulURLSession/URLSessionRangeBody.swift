import Foundation
import HaulCore

/// A body that is part of its file, read into memory for the URLSession transport, which can
/// stream only a whole file with its length (see `URLSessionTransport.makeTask(for:)`).
///
/// The bytes are read with `pread` into one buffer that corelibs copies when the task is
/// made, so the range is held in memory while the task runs.
enum URLSessionRangeBody {
  /// The `length` bytes of the file at `path` from `offset`; `io` when they cannot be read
  /// or the file ends first.
  static func read(_ path: String, offset: Int64, length: Int64) throws(TransferError) -> Data {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw TransferError(
        .io, "cannot open the upload's body file: \(String(cString: strerror(errno)))")
    }
    defer { close(descriptor) }
    var data = Data(count: Int(length))
    let problem = data.withUnsafeMutableBytes { bytes -> String? in
      var filled = 0
      while filled < bytes.count {
        let count = pread(
          descriptor, bytes.baseAddress! + filled, bytes.count - filled,
          off_t(offset) + off_t(filled))
        if count < 0, errno == EINTR { continue }
        if count < 0 {
          return "cannot read the upload's body file: \(String(cString: strerror(errno)))"
        }
        if count == 0 { return "the upload's body file ends before its range does" }
        filled += count
      }
      return nil
    }
    if let problem { throw TransferError(.io, problem) }
    return data
  }
}
