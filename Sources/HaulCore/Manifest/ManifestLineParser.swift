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
    let trimmed = String(decoding: content, as: UTF8.self)
    if let scheme = ManifestURL.scheme(of: trimmed),
      trimmed.utf8.dropFirst(scheme.utf8.count + 1).starts(with: "//".utf8)
    {
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

  private static func parseObject(
    _ content: UnsafeBufferPointer<UInt8>, line: Int, text: String
  ) throws(ManifestLineError) -> ManifestEntry {
    let value: JSONValue
    do {
      value = try JSONLineParser.parse(content)
    } catch {
      throw ManifestLineError(
        error.isRepeatedKey
          ? error.reason : "invalid JSON at column \(error.column): \(error.reason)")
    }
    guard case .object(let members) = value else {
      throw ManifestLineError("a line must be a JSON object, not \(value.kindName)")
    }

    var url: URL?
    var mirrors: [URL] = []
    var path: String?
    var operation = ManifestEntry.Operation.download
    var method: String?
    var size: Int64?
    var sha256: String?
    var headers: [HTTPField] = []

    for member in members {
      let (key, value) = (member.key, member.value)
      switch key {
      case "url":
        url = try ManifestURL.parse(try string(value, field: "url"), field: "\"url\"").get()
      case "path":
        path = try ManifestPath.normalize(try string(value, field: "path")).get()
      case "op":
        guard let op = ManifestEntry.Operation(rawValue: try string(value, field: "op")) else {
          throw ManifestLineError("\"op\" must be \"download\" or \"upload\"")
        }
        operation = op
      case "method":
        let given = try string(value, field: "method")
        guard given == "PUT" || given == "POST" else {
          throw ManifestLineError("\"method\" must be \"PUT\" or \"POST\"")
        }
        method = given
      case "size":
        size = try wholeNumber(value, field: "size")
      case "sha256":
        sha256 = try digest(try string(value, field: "sha256"))
      case "headers":
        headers = try parseHeaders(value)
      case "mirrors":
        mirrors = try parseMirrors(value)
      default:
        throw ManifestLineError("unknown field \(ManifestText.quoted(key))")
      }
    }

    guard let url else { throw ManifestLineError("missing \"url\"") }
    switch operation {
    case .download:
      if method != nil { throw ManifestLineError("\"method\" is only for uploads") }
      if path == nil { path = try defaultPath(for: url) }
    case .upload:
      if path == nil { throw ManifestLineError("an upload needs \"path\"") }
    }
    return ManifestEntry(
      line: line, text: text, operation: operation, url: url, mirrors: mirrors, path: path!,
      method: method, size: size, sha256: sha256, headers: headers)
  }

  // MARK: - Fields

  private static func string(_ value: JSONValue, field: String) throws(ManifestLineError)
    -> String
  {
    guard case .string(let string) = value else {
      throw ManifestLineError("\"\(field)\" must be a string, not \(value.kindName)")
    }
    return string
  }

  private static func wholeNumber(_ value: JSONValue, field: String) throws(ManifestLineError)
    -> Int64
  {
    guard case .number(let number) = value else {
      throw ManifestLineError("\"\(field)\" must be a number, not \(value.kindName)")
    }
    switch number.wholeNumber {
    case .value(let whole): return whole
    case .negative: throw ManifestLineError("\"\(field)\" must not be negative")
    case .notWhole: throw ManifestLineError("\"\(field)\" must be a whole number of bytes")
    case .tooLarge: throw ManifestLineError("\"\(field)\" is too large (at most 2^63-1)")
    }
  }

  /// 64 hex digits, returned in lower case.
  private static func digest(_ string: String) throws(ManifestLineError) -> String {
    guard string.utf8.count == 64, string.utf8.allSatisfy({ $0.isHexDigit }) else {
      throw ManifestLineError("\"sha256\" must be 64 hex digits")
    }
    return string.lowercased()
  }

  private static func parseHeaders(_ value: JSONValue) throws(ManifestLineError) -> [HTTPField] {
    guard case .object(let members) = value else {
      throw ManifestLineError("\"headers\" must be an object, not \(value.kindName)")
    }
    var fields: [HTTPField] = []
    fields.reserveCapacity(members.count)
    for member in members {
      let (name, value) = (member.key, member.value)
      guard case .string(let string) = value else {
        throw ManifestLineError(
          "header \(ManifestText.quoted(name)) must be a string, not \(value.kindName)")
      }
      let field = HTTPField(name, string)
      if let problem = field.userHeaderProblem { throw ManifestLineError(problem) }
      fields.append(field)
    }
    return fields
  }

  private static func parseMirrors(_ value: JSONValue) throws(ManifestLineError) -> [URL] {
    guard case .array(let elements) = value else {
      throw ManifestLineError("\"mirrors\" must be an array, not \(value.kindName)")
    }
    var urls: [URL] = []
    urls.reserveCapacity(elements.count)
    for (offset, element) in elements.enumerated() {
      let field = "\"mirrors\" item \(offset + 1)"
      guard case .string(let string) = element else {
        throw ManifestLineError("\(field) must be a string, not \(element.kindName)")
      }
      urls.append(try ManifestURL.parse(string, field: field).get())
    }
    return urls
  }

  private static func defaultPath(for url: URL) throws(ManifestLineError) -> String {
    try ManifestPath.defaultName(percentEncodedPath: url.path(percentEncoded: true)).get()
  }
}

extension UInt8 {
  fileprivate var isHexDigit: Bool {
    (self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9"))
      || (self | 0x20 >= UInt8(ascii: "a") && self | 0x20 <= UInt8(ascii: "f"))
  }
}
