import Foundation

/// One HTTP exchange for a transport to perform: a single request and its response, without
/// following redirects (haul follows them itself, the same way for every transport; see
/// `RedirectPolicy`).
public struct TransferRequest: Sendable {
  /// The fields that hold references (strings, arrays, the URL), kept in one box so that a
  /// copy of the request costs one retain (`CopyOnWriteBox`).
  private struct Parts: Sendable {
    var url: URL
    var method: String
    var headers: [HTTPField]
    var ifRange: String?
    var conditions: [HTTPField] = []
    var body: RequestBody?
  }

  private var parts: CopyOnWriteBox<Parts>

  /// The URL to send to; always `http` or `https`.
  public var url: URL {
    get { parts.value.url }
    _modify { yield &parts.value.url }
  }
  /// `GET` for downloads, `PUT` or `POST` for uploads.
  public var method: String {
    get { parts.value.method }
    _modify { yield &parts.value.method }
  }
  /// Extra request headers (the transfer's own: `--header`, manifest `headers`, credentials).
  /// `Range` and `If-Range` are set from `range` and `ifRange`, never through here.
  public var headers: [HTTPField] {
    get { parts.value.headers }
    _modify { yield &parts.value.headers }
  }
  /// The byte range to ask for (`Range: bytes=start-` or `bytes=start-end`), or `nil`.
  public var range: ByteRange?
  /// The validator sent as `If-Range` with `range` (a strong ETag or an HTTP date).
  public var ifRange: String? {
    get { parts.value.ifRange }
    _modify { yield &parts.value.ifRange }
  }
  /// The fields of a conditional request (`--refresh`: `If-None-Match`,
  /// `If-Modified-Since`). Unlike `headers` they go to every redirect hop, also to another
  /// origin: they describe the local copy, not the user, and the ETag they carry came from
  /// the final hop. `RedirectWalk` adds them to each hop's `headers`.
  public var conditions: [HTTPField] {
    get { parts.value.conditions }
    _modify { yield &parts.value.conditions }
  }
  /// The request body, for uploads; streamed from the file, never loaded whole.
  public var body: RequestBody? {
    get { parts.value.body }
    _modify { yield &parts.value.body }
  }
  /// A transfer that moves no byte for this many seconds fails with `timeout`.
  public var stallTimeout: Double
  /// Opening the connection (including TLS) may take at most this many seconds.
  public var connectTimeout: Double
  /// Whether a redirect to exactly this URL plus `/` ends the exchange instead of being
  /// followed, so that the answer tells a folder (`RedirectWalk.folder(after:of:)`): for a
  /// listing that asks whether a name its page does not mark is a folder.
  package var stopsAtFolderRedirect = false
  /// Whether any redirect ends the exchange instead of being followed: the redirect is the
  /// answer, for a request whose answer's own fields name the target (the Hugging Face
  /// Hub's `resolve` answer, `X-Linked-Etag`).
  package var stopsAtRedirect = false
  /// Whether the transport keeps the response's `Set-Cookie` fields in its head (a run with
  /// cookies sets it); off, a transport may drop them with the other fields haul does not
  /// read (`ResponseHead.fieldsRead`).
  package var readsCookies = false

  public init(
    url: URL, method: String = "GET", headers: [HTTPField] = [], range: ByteRange? = nil,
    ifRange: String? = nil, body: RequestBody? = nil, stallTimeout: Double = 30,
    connectTimeout: Double = 30
  ) {
    parts = CopyOnWriteBox(
      Parts(url: url, method: method, headers: headers, ifRange: ifRange, body: body))
    self.range = range
    self.stallTimeout = stallTimeout
    self.connectTimeout = connectTimeout
  }
}

/// An inclusive byte range; `end == nil` means "to the end of the resource".
public struct ByteRange: Sendable, Hashable {
  public var start: Int64
  public var end: Int64?
  public init(start: Int64, end: Int64? = nil) {
    self.start = start
    self.end = end
  }
  /// The value of a `Range` header for this range.
  public var headerValue: String { "bytes=\(start)-\(end.map(String.init) ?? "")" }
}

/// The body of a request: `length` bytes of a regular file from byte `offset` on, read from
/// the file each time it is sent, never copied first, or a few bytes held in memory. The
/// whole file is `offset` 0 and its size as `length`; a part of it (a multipart upload's part,
/// a resumable upload's chunk) is any range inside it. A file that holds fewer than
/// `offset + length` bytes when the body is sent fails the exchange with `io`. Bytes in
/// memory are for the small documents a request carries (a multipart upload's list of parts),
/// which would otherwise have to be written to a file first; every transport sends both.
public struct RequestBody: Sendable, Hashable {
  /// Where the body's bytes are.
  public enum Content: Sendable, Hashable {
    /// `length` bytes of the regular file at the absolute `path`, from byte `offset` on.
    case file(path: String, offset: Int64, length: Int64)
    /// These bytes, held in memory (and sent again from there when the request is).
    case bytes([UInt8])
  }

  /// Where the body's bytes are.
  public var content: Content

  /// `length` bytes of the file at `path` (absolute) from byte `offset` on.
  public init(path: String, offset: Int64 = 0, length: Int64) {
    content = .file(path: path, offset: offset, length: length)
  }

  /// `bytes`, held in memory: for a small document, never for a file's contents.
  public init(bytes: [UInt8]) {
    content = .bytes(bytes)
  }

  /// The file the body is read from; `nil` for bytes in memory.
  public var path: String? {
    guard case .file(let path, _, _) = content else { return nil }
    return path
  }
  /// The first byte of the file to send (0 for bytes in memory).
  public var offset: Int64 {
    guard case .file(_, let offset, _) = content else { return 0 }
    return offset
  }
  /// The number of bytes to send (`Content-Length`).
  public var length: Int64 {
    switch content {
    case .file(_, _, let length): length
    case .bytes(let bytes): Int64(bytes.count)
    }
  }
  /// The file offset just past the body's last byte.
  public var end: Int64 { offset + length }
}
