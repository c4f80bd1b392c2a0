/// The status line and header fields of one HTTP response.
public struct ResponseHead: Sendable, Hashable {
  /// The HTTP status code (200, 206, 404, ...).
  public var status: Int
  /// Header fields in the order received; names as sent by the server.
  public var headers: [HTTPField]
  /// Whether the response came over a connection that carries several exchanges at once
  /// (HTTP/2 or later), so that more transfers to its host cost streams, not connections.
  /// `false` where the transport cannot tell.
  public var multiplexed: Bool

  public init(status: Int, headers: [HTTPField] = [], multiplexed: Bool = false) {
    self.status = status
    self.headers = headers
    self.multiplexed = multiplexed
  }

  /// The response fields haul reads (lower case). A transport may keep only these: the
  /// rest of a response head is never looked at, so building it would be work per
  /// response for nothing. `Set-Cookie` is read too when the run keeps cookies (a
  /// transport of haul's own keeps it for a request whose `readsCookies` is set; another
  /// should keep every `Set-Cookie` field).
  public static let fieldsRead: [String] = [
    "content-length", "content-range", "content-type", "content-encoding", "etag",
    "last-modified", "location", "retry-after", "repr-digest", "content-digest", "digest",
    "x-goog-hash", "x-amz-checksum-sha256", "transfer-encoding", "upload-offset",
    "upload-length", "upload-complete", "upload-limit", "upload-draft-interop-version",
    "tus-version", "tus-extension", "tus-checksum-algorithm", "link", "x-error-code",
    "x-error-message", "x-repo-commit", "x-linked-etag", "x-linked-size",
  ]

  /// The first value of header `name` (ASCII case ignored).
  public func value(for name: String) -> String? { headers.value(for: name) }

  /// `Content-Length`, when present and a valid non-negative integer.
  public var contentLength: Int64? {
    value(for: "Content-Length").flatMap { Int64($0.trimmingASCIIWhitespace()) }
      .flatMap { $0 >= 0 ? $0 : nil }
  }
}

extension String {
  /// The string without leading and trailing spaces and tabs (and CR/LF). Returns `self`
  /// untouched when there is nothing to trim, the common case for header values.
  package func trimmingASCIIWhitespace() -> String {
    let bytes = utf8
    func isSpace(_ byte: UInt8) -> Bool {
      byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
        || byte == UInt8(ascii: "\n")
    }
    guard let first = bytes.first, let last = bytes.last, isSpace(first) || isSpace(last) else {
      return self
    }
    guard let start = bytes.firstIndex(where: { !isSpace($0) }),
      let end = bytes.lastIndex(where: { !isSpace($0) })
    else { return "" }
    return String(self[start...end])
  }

  /// Whether the string starts with `prefix`, ASCII case ignored; `prefix` is lower case.
  /// Compares bytes, without the lower-cased copy `lowercased()` would allocate.
  package func hasPrefixIgnoringASCIICase(_ prefix: StaticString) -> Bool {
    let bytes = utf8
    guard bytes.count >= prefix.utf8CodeUnitCount else { return false }
    return prefix.withUTF8Buffer { wanted in
      var index = bytes.startIndex
      for byte in wanted {
        guard bytes[index].asciiLowercased == byte else { return false }
        index = bytes.index(after: index)
      }
      return true
    }
  }
}
