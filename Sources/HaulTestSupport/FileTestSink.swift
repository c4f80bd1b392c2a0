import Foundation
import HaulCore
import Synchronization

/// A `ResponseSink` that writes an accepted body into a file the way haul's partial files
/// are written, for transport tests.
///
/// - A 206 head continues the file at the start of its `Content-Range`: the existing prefix
///   is re-hashed and anything after it is cut off, so the file ends up as prefix + body.
/// - Any other 2xx head starts the file over from zero (truncated, digest reset).
/// - A non-2xx head (error page, redirect) is recorded and its body refused: it never lands
///   in the file.
///
/// Every head is recorded, and the body bytes feed a `SHA256` as they are written.
/// Thread-safe: the transport's thread writes while a test may read `bytesWritten`.
public final class FileTestSink: ResponseSink {
  /// The file the body is written to.
  public let path: String

  private struct State {
    var fd: Int32
    var hasher = SHA256()
    var heads: [ResponseHead] = []
    var offset: Int64 = 0
    var bodyBytes: Int64 = 0
    var sentBytes: Int64 = 0
    var bodyLimit: Int64?
  }
  private let state: Mutex<State>

  /// Opens (creating if needed, not truncating) `path`. A body longer than `bodyLimit`
  /// bytes is refused with `size_mismatch`, as haul refuses more than the expected size.
  public init(path: String, bodyLimit: Int64? = nil) throws {
    let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw FixtureError("cannot open \(path): \(errnoText())") }
    self.path = path
    state = Mutex(State(fd: fd, bodyLimit: bodyLimit))
  }

  deinit {
    state.withLock { if $0.fd >= 0 { close($0.fd) } }
  }

  public func receive(head: ResponseHead) throws(TransferError) -> Bool {
    try state.withLock { (s) throws(TransferError) -> Bool in
      s.heads.append(head)
      guard (200..<300).contains(head.status) else { return false }
      var start: Int64 = 0
      if head.status == 206 {
        guard let range = head.value(for: "Content-Range").flatMap(Self.contentRangeStart) else {
          throw TransferError(.protocol, "206 without a valid Content-Range")
        }
        start = range
      }
      try Self.restart(&s, at: start)
      return true
    }
  }

  public func receive(body: UnsafeRawBufferPointer) throws(TransferError) {
    try state.withLock { (s) throws(TransferError) in
      if let limit = s.bodyLimit, s.bodyBytes + Int64(body.count) > limit {
        throw TransferError(.sizeMismatch, "body longer than the expected \(limit) bytes")
      }
      var done = 0
      while done < body.count {
        let n = pwrite(s.fd, body.baseAddress! + done, body.count - done, off_t(s.offset))
        if n < 0 {
          if errno == EINTR { continue }
          throw Self.fileError("write", errno)
        }
        done += n
        s.offset += Int64(n)
      }
      s.hasher.update(body)
      s.bodyBytes += Int64(body.count)
    }
  }

  public func sent(totalBytes: Int64) {
    state.withLock { $0.sentBytes = max($0.sentBytes, totalBytes) }
  }

  /// Every head received, in order.
  public var heads: [ResponseHead] { state.withLock { $0.heads } }

  /// Body bytes accepted since the last accepted head.
  public var bodyBytes: Int64 { state.withLock { $0.bodyBytes } }

  /// The highest upload progress reported through `sent(totalBytes:)`.
  public var sentBytes: Int64 { state.withLock { $0.sentBytes } }

  /// The SHA-256 of the file as written (resumed prefix plus body). Call once, at the end:
  /// it finalizes the digest and closes the file.
  public func finish() -> String {
    state.withLock { s in
      if s.fd >= 0 {
        close(s.fd)
        s.fd = -1
      }
      return s.hasher.finalize()
    }
  }

  private static func restart(_ s: inout State, at start: Int64) throws(TransferError) {
    s.hasher.reset()
    s.bodyBytes = 0
    s.offset = start
    if start > 0 {
      var info = stat()
      guard fstat(s.fd, &info) == 0 else { throw fileError("stat", errno) }
      guard Int64(info.st_size) >= start else {
        throw TransferError(
          .protocol, "206 starts at \(start) but the file holds \(info.st_size) bytes")
      }
      try rehash(fd: s.fd, count: start, into: s.hasher)
    }
    guard ftruncate(s.fd, off_t(start)) == 0 else { throw fileError("truncate", errno) }
  }

  private static func rehash(fd: Int32, count: Int64, into hasher: SHA256) throws(TransferError) {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 8)
    defer { buffer.deallocate() }
    var done: Int64 = 0
    while done < count {
      let want = Int(min(Int64(buffer.count), count - done))
      let n = pread(fd, buffer.baseAddress!, want, off_t(done))
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { throw fileError("read", n < 0 ? errno : EIO) }
      hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
      done += Int64(n)
    }
  }

  /// The first byte position of a `Content-Range: bytes a-b/total` value.
  static func contentRangeStart(_ value: String) -> Int64? {
    let v = value.trimmingASCIIWhitespace()
    guard v.hasPrefix("bytes ") else { return nil }
    let spec = v.dropFirst(6)
    guard let dash = spec.firstIndex(of: "-"), let start = Int64(spec[..<dash]), start >= 0 else {
      return nil
    }
    return start
  }

  private static func fileError(_ what: String, _ code: Int32) -> TransferError {
    if code == ENOSPC || code == EDQUOT {
      return TransferError(.diskFull, "\(what) failed: \(errnoText(code))")
    }
    return TransferError(.io, "\(what) failed: \(errnoText(code))")
  }
}
