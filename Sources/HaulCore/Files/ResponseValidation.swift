/// Decides what a download does with a response, given what was asked for: the one place
/// that guarantees a file is never spliced from two different versions of a resource.
///
/// Pure: the same inputs always give the same plan; see `ResponseValidationTests`.
package enum ResponseValidation {
  /// What to do with a response's body.
  package enum Plan: Sendable, Hashable {
    /// Write the body at `offset`; `total` is the resource's full length when known.
    /// `restart` is true when a range was asked for but the whole resource comes instead
    /// (the partial file must be emptied first).
    case write(offset: Int64, total: Int64?, restart: Bool)
    /// The partial file already holds the whole resource (416 with a matching length).
    case complete(total: Int64)
    /// The partial file is not a prefix of the resource: start again without a range.
    case restart
    /// Not a body to keep (error page, redirect): discard it; the status decides.
    case discard
    /// The response is unusable; nothing is written.
    case fail(TransferError)
  }

  /// The plan for `head`, the answer to a request for `requested` (nil: the whole resource),
  /// where the manifest expects `expectedSize` bytes (if given) and the partial file was
  /// saved as a prefix of a resource of `knownTotal` bytes (if known): a range answer whose
  /// total differs belongs to another version, and the download starts over. So does a 206
  /// whose validator contradicts `ifRange`, the one the request sent: a server that ignores
  /// `If-Range` (h2o 2.2 does) would otherwise splice two versions.
  package static func plan(
    for head: ResponseHead, requested: ByteRange?, expectedSize: Int64?,
    knownTotal: Int64? = nil, ifRange: String? = nil
  ) -> Plan {
    if head.status == 416, let requested {
      guard let total = ContentRange.unsatisfiedTotal(head.value(for: "Content-Range")) else {
        return .restart
      }
      if let expectedSize, total != expectedSize { return sizeMismatch(total, expectedSize) }
      if let knownTotal, total != knownTotal { return .restart }
      return requested.start == total ? .complete(total: total) : .restart
    }
    guard (200..<300).contains(head.status) else { return .discard }
    if let type = head.value(for: "Content-Type"),
      type.hasPrefixIgnoringASCIICase("multipart/byteranges")
    {
      return .fail(TransferError(.protocol, "unexpected multipart/byteranges response"))
    }
    guard answersRange(head, requested: requested) else {
      let total = head.contentLength
      if let total, let expectedSize, total != expectedSize {
        return sizeMismatch(total, expectedSize)
      }
      let restart = requested != nil
      return .write(offset: 0, total: total, restart: restart)
    }
    guard let requested else {
      return .fail(TransferError(.protocol, "206 answer to a request without Range"))
    }
    if let ifRange, Validator.contradicts(head, sent: ifRange) { return .restart }
    guard let range = ContentRange(head.value(for: "Content-Range")) else {
      return .fail(TransferError(.protocol, "206 answer without a valid Content-Range"))
    }
    guard range.start == requested.start else {
      return .fail(
        TransferError(
          .protocol, "Content-Range starts at \(range.start), asked for \(requested.start)"))
    }
    if let total = range.total {
      if let expectedSize, total != expectedSize { return sizeMismatch(total, expectedSize) }
      if let knownTotal, total != knownTotal { return .restart }
      let wantedEnd = min(requested.end ?? (total - 1), total - 1)
      guard range.end == wantedEnd else {
        return .fail(
          TransferError(.protocol, "Content-Range ends at \(range.end), expected \(wantedEnd)"))
      }
    } else if let end = requested.end, range.end != end {
      return .fail(TransferError(.protocol, "Content-Range ends at \(range.end), expected \(end)"))
    }
    if let length = head.contentLength, length != range.end - range.start + 1 {
      return .fail(TransferError(.protocol, "Content-Length does not match Content-Range"))
    }
    return .write(offset: range.start, total: range.total, restart: false)
  }

  /// Whether `head` answers `requested` with that range: a 206, or a 200 whose
  /// `Content-Range` is exactly the range asked for (its start, and its end as the total
  /// bounds it) with a `Content-Length` of that range, if any. Some object stores
  /// (`rclone serve s3`) answer a range so, with the range's bytes as the body; a 200 without
  /// such a `Content-Range` is the whole resource.
  package static func answersRange(_ head: ResponseHead, requested: ByteRange?) -> Bool {
    if head.status == 206 { return true }
    guard head.status == 200, let requested,
      let range = ContentRange(head.value(for: "Content-Range")), let total = range.total,
      range.start == requested.start,
      range.end == min(requested.end ?? (total - 1), total - 1)
    else { return false }
    return head.contentLength.map { $0 == range.end - range.start + 1 } ?? true
  }

  private static func sizeMismatch(_ total: Int64, _ expected: Int64) -> Plan {
    .fail(TransferError(.sizeMismatch, "server has \(total) bytes, expected \(expected)"))
  }
}

/// A parsed `Content-Range: bytes START-END/TOTAL` (TOTAL may be `*`).
package struct ContentRange: Sendable, Hashable {
  package var start: Int64
  package var end: Int64
  package var total: Int64?

  /// Parses a `Content-Range` value; `nil` when absent or malformed (or END < START, or
  /// END ≥ TOTAL).
  package init?(_ value: String?) {
    guard let value = value?.trimmingASCIIWhitespace(), value.hasPrefixIgnoringASCIICase("bytes ")
    else { return nil }
    let rest = value.dropFirst(6)
    let halves = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
    guard halves.count == 2 else { return nil }
    let bounds = halves[0].split(separator: "-", omittingEmptySubsequences: false)
    guard bounds.count == 2, let start = Int64(bounds[0]), let end = Int64(bounds[1]),
      start >= 0, end >= start
    else { return nil }
    if halves[1] == "*" {
      total = nil
    } else {
      guard let total = Int64(halves[1]), total > end else { return nil }
      self.total = total
    }
    self.start = start
    self.end = end
  }

  /// The TOTAL of `Content-Range: bytes */TOTAL` (the form a 416 carries).
  package static func unsatisfiedTotal(_ value: String?) -> Int64? {
    guard let value = value?.trimmingASCIIWhitespace(), value.hasPrefixIgnoringASCIICase("bytes */")
    else { return nil }
    return Int64(value.dropFirst(8)).flatMap { $0 >= 0 ? $0 : nil }
  }
}

/// The validator that guards a resume (`If-Range`): a strong ETag, else `Last-Modified`.
/// Weak ETags (`W/"..."`) are never used: RFC 9110 forbids them in `If-Range`.
package enum Validator {
  package static func from(_ head: ResponseHead) -> String? {
    if let etag = head.value(for: "ETag")?.trimmingASCIIWhitespace(), etag.hasPrefix("\"") {
      return etag
    }
    if let modified = head.value(for: "Last-Modified")?.trimmingASCIIWhitespace(),
      !modified.isEmpty
    {
      return modified
    }
    return nil
  }

  /// Whether `head` names another version than `sent`, the validator of an `If-Range`: an
  /// ETag (`"..."`) is compared with the head's `ETag`, a date with its `Last-Modified`, each
  /// exactly, as `If-Range` itself compares (RFC 9110 §13.1.5). A head without that field
  /// contradicts nothing: many servers leave validators out of a 206.
  package static func contradicts(_ head: ResponseHead, sent: String) -> Bool {
    let sent = sent.trimmingASCIIWhitespace()
    let name = sent.hasPrefix("\"") ? "ETag" : "Last-Modified"
    guard let value = head.value(for: name)?.trimmingASCIIWhitespace() else { return false }
    return value != sent
  }
}
