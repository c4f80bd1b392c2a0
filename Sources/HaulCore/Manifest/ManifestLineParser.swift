import Foundation

/// Turns one manifest line into an entry, applying every rule that needs only the line
/// itself (the upload file's existence and duplicate destinations are checked by
/// `Manifest.validate()`, which sees the file system and the whole manifest).
///
/// Line kinds, after surrounding spaces and tabs are set aside:
/// - empty: a blank line, skipped;
/// - starting with `#`: a comment, skipped (so `  # note` is a comment too);
/// - starting with `{`: a JSON object, the usual entry;
/// - starting with `scheme://`: a bare URL, a download with default fields (`wget -i`
///   lists); an `ftp://` line is an error about its scheme;
/// - anything else: an error.
///
/// Every line, comments included, must be well-formed UTF-8.
enum ManifestLineParser {
  /// The entry on `bytes` (one line without its line break), or `nil` for a blank or
  /// comment line.
  static func parse(_ bytes: UnsafeBufferPointer<UInt8>, line: Int) throws(ManifestLineError)
    -> ManifestEntry?
  {
    if let offset = UTF8Validation.firstInvalidOffset(in: bytes) {
      throw ManifestLineError("invalid UTF-8 at byte \(offset + 1)")
    }
    var start = 0
    var end = bytes.count
    while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
    while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
    guard start < end, bytes[start] != UInt8(ascii: "#") else { return nil }

    let text = String(decoding: bytes, as: UTF8.self)
    let content = UnsafeBufferPointer(rebasing: bytes[start..<end])
    if content[0] == UInt8(ascii: "{") {
      return try parseObject(content, line: line, text: text)
    }
    if let schemeLength = ManifestURL.schemeLength(in: content),
      content.dropFirst(schemeLength + 1).starts(with: "//".utf8)
    {
      let trimmed =
        content.count == bytes.count ? text : String(decoding: content, as: UTF8.self)
      let url = try ManifestURL.parse(trimmed, field: "URL").get()
      let path = try defaultPath(for: url)
      return ManifestEntry(line: line, text: text, url: url, path: path)
    }
    if case .success(let value) = Result(catching: { () throws(JSONLineParser.SyntaxError) in
      try JSONLineParser.parse(content)
    }) {
      throw ManifestLineError("a line must be a JSON object, not \(value.kindName)")
    }
    throw ManifestLineError("not a JSON object and not an http(s) URL")
  }

  /// The entry written as a JSON object (see `ManifestObjectScanner`), after the rules that
  /// concern more than one field.
  private static func parseObject(
    _ content: UnsafeBufferPointer<UInt8>, line: Int, text: String
  ) throws(ManifestLineError) -> ManifestEntry {
    var fields = try ManifestObjectScanner.scan(content)
    guard let url = fields.url else { throw ManifestLineError("missing \"url\"") }
    switch fields.operation {
    case .download:
      if fields.method != nil { throw ManifestLineError("\"method\" is only for uploads") }
      if fields.path == nil { fields.path = try defaultPath(for: url) }
    case .upload:
      if fields.path == nil { throw ManifestLineError("an upload needs \"path\"") }
    }
    return ManifestEntry(
      line: line, text: text, operation: fields.operation, url: url, mirrors: fields.mirrors,
      path: fields.path!, method: fields.method, size: fields.size, sha256: fields.sha256,
      headers: fields.headers)
  }

  private static func defaultPath(for url: URL) throws(ManifestLineError) -> String {
    try ManifestPath.defaultName(percentEncodedPath: url.path(percentEncoded: true)).get()
  }
}
