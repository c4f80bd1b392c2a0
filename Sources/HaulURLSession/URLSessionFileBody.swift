import Foundation
import HaulCore
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The body of an upload from a file: exactly `length` bytes from `offset`, read with `pread`
/// as corelibs asks for them through `stream`, the request's `httpBodyStream`.
///
/// Why a stream and not `uploadTask(with:fromFile:)`: corelibs sends a whole file only, and on
/// a session with a delegate it updates the task's progress for every chunk sent, each time
/// reading the file's attributes (`FileManager.attributesOfItem`: a `stat`, `listxattr`, and
/// the owner's and group's names, opening `/etc/passwd` and `/etc/group`). A stream body
/// costs one `pread` a chunk, and sends a range of a file as it sends the whole.
///
/// corelibs gives a stream body no length, so `URLRequest.streamingFileBody(_:)` states it.
///
/// Threading: corelibs reads the stream on the task's work queue; the exchange reads
/// `failure` and closes the body from the delegate queue. The state is behind a `Mutex`. The
/// file is closed once its last byte has been read, on a failure, by `close()`, or when the
/// body is released (corelibs never closes a body stream).
final class URLSessionFileBody: Sendable {
  private struct State {
    var descriptor: Int32
    var next: Int64
    var remaining: Int64
    var failure: TransferError?
  }

  /// The file, its first byte and the number of bytes the body holds.
  let path: String
  let offset: Int64
  let length: Int64
  private let state: Mutex<State>

  /// Opens `length` bytes of the regular file at `path` from `offset`; `io` when the file
  /// cannot be opened, is not a regular file, or holds fewer than `offset + length` bytes.
  convenience init(path: String, offset: Int64, length: Int64) throws(TransferError) {
    let descriptor = try Self.openFile(path, offset: offset, length: length).get()
    self.init(path: path, offset: offset, length: length, descriptor: descriptor, failure: nil)
  }

  private init(
    path: String, offset: Int64, length: Int64, descriptor: Int32, failure: TransferError?
  ) {
    self.path = path
    self.offset = offset
    self.length = length
    state = Mutex(
      State(descriptor: descriptor, next: offset, remaining: length, failure: failure))
  }

  deinit {
    state.withLock { Self.closeFile(&$0) }
  }

  /// A new stream over this body, for corelibs to read.
  var stream: InputStream { FileBodyStream(body: self) }

  /// The same bytes again from the first, for a request libcurl sends once more
  /// (`URLSessionTaskDelegate.urlSession(_:task:needNewBodyStream:)`). A file that cannot be
  /// opened any more gives a body whose every read fails, so the request fails instead of
  /// going on with bytes from elsewhere in the file.
  func reopened() -> URLSessionFileBody {
    switch Self.openFile(path, offset: offset, length: length) {
    case .success(let descriptor):
      return URLSessionFileBody(
        path: path, offset: offset, length: length, descriptor: descriptor, failure: nil)
    case .failure(let error):
      return URLSessionFileBody(
        path: path, offset: offset, length: length, descriptor: -1, failure: error)
    }
  }

  /// Why the body could not be sent whole, once a read has failed.
  var failure: TransferError? { state.withLock { $0.failure } }

  /// Whether bytes are still to be sent.
  var hasRemaining: Bool { state.withLock { $0.remaining > 0 } }

  /// Closes the file; later reads fail.
  func close() {
    state.withLock { Self.closeFile(&$0) }
  }

  /// Reads the next bytes into `buffer`, at most `maxLength`: their count, 0 once the body
  /// has been read whole, -1 when the file cannot be read or ends before the body does (then
  /// `failure` says which).
  func read(into buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
    state.withLock { state in
      guard state.remaining > 0 else { return 0 }
      guard state.failure == nil, state.descriptor >= 0 else { return -1 }
      let wanted = Int(min(Int64(maxLength), state.remaining))
      var count: Int
      repeat {
        count = pread(state.descriptor, buffer, wanted, off_t(state.next))
      } while count < 0 && errno == EINTR
      guard count > 0 else {
        state.failure = TransferError(
          .io,
          count < 0
            ? "cannot read the upload's body file: \(String(cString: strerror(errno)))"
            : "the upload's body file ends \(state.remaining) bytes before its length does")
        Self.closeFile(&state)
        return -1
      }
      state.next += Int64(count)
      state.remaining -= Int64(count)
      if state.remaining == 0 { Self.closeFile(&state) }
      return count
    }
  }

  private static func closeFile(_ state: inout State) {
    guard state.descriptor >= 0 else { return }
    Glibc.close(state.descriptor)
    state.descriptor = -1
  }

  /// A descriptor of the regular file at `path` that holds at least `offset + length` bytes.
  /// `O_NONBLOCK` keeps a FIFO in the file's place from blocking the open; it changes nothing
  /// for a regular file.
  private static func openFile(_ path: String, offset: Int64, length: Int64) -> Result<
    Int32, TransferError
  > {
    let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard descriptor >= 0 else {
      return .failure(
        TransferError(
          .io, "cannot read the upload's body file: \(String(cString: strerror(errno)))"))
    }
    var status = stat()
    let problem: String? =
      if fstat(descriptor, &status) != 0 {
        "cannot read the upload's body file: \(String(cString: strerror(errno)))"
      } else if status.st_mode & S_IFMT != S_IFREG {
        "the upload's body is not a regular file"
      } else if Int64(status.st_size) < offset + length {
        "the upload's body file holds \(status.st_size) bytes, fewer than the "
          + "\(offset + length) it is sent to"
      } else {
        nil
      }
    if let problem {
      Glibc.close(descriptor)
      return .failure(TransferError(.io, problem))
    }
    return .success(descriptor)
  }
}

/// The `InputStream` corelibs reads a `URLSessionFileBody` through, on the task's work queue:
/// `open`, then `hasBytesAvailable` and `read` per chunk (corelibs ends the body when
/// `hasBytesAvailable` is false, so it stays true after a failed read, and the next read
/// fails the transfer).
private final class FileBodyStream: InputStream {
  private let body: URLSessionFileBody
  private var status: Stream.Status = .notOpen

  init(body: URLSessionFileBody) {
    self.body = body
    super.init(data: Data())
  }

  override func open() { status = .open }

  override func close() {
    body.close()
    status = .closed
  }

  override var streamStatus: Stream.Status { status }

  override var streamError: (any Error)? { body.failure }

  override var hasBytesAvailable: Bool { body.hasRemaining }

  override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
    let count = body.read(into: buffer, maxLength: maxLength)
    status = count < 0 ? .error : (body.hasRemaining ? status : .atEnd)
    return count
  }
}

extension URLRequest {
  /// This request with `body` as its body, announced by its `Content-Length`.
  ///
  /// corelibs gives libcurl no length for a stream body (`CURLOPT_INFILESIZE_LARGE` -1), and
  /// libcurl then frames it chunked unless the request has a `Transfer-Encoding` field of its
  /// own. A field whose value is blank is one libcurl counts but sends no line for (its rule
  /// for custom headers: a header without content is left out), so the request goes with the
  /// `Content-Length` set here and the body unframed, as a file body would.
  mutating func streamingFileBody(_ body: URLSessionFileBody) {
    httpBodyStream = body.stream
    setValue(String(body.length), forHTTPHeaderField: "Content-Length")
    setValue(" ", forHTTPHeaderField: "Transfer-Encoding")
  }
}
