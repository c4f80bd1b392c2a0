import Foundation

/// Reads a manifest line's JSON object straight into an entry's fields, in one pass and
/// without building a `JSONValue` tree for it: the keys are a small fixed set, so each key is
/// matched on its bytes and its value read into its field. Only what cannot be a valid field
/// (an unknown field's value, a value of the wrong type) is parsed into a `JSONValue`, to
/// check its syntax and name its kind.
///
/// The messages and their precedence are those of parsing the whole line with
/// `JSONLineParser` and then checking the fields in the order written: a syntax error
/// anywhere (a repeated key included) wins over every field problem, so a field's problem is
/// kept aside until the whole object has been read, and only the first one is kept.
struct ManifestObjectScanner {
  /// What the object holds; fields left out keep their defaults.
  struct Fields {
    var url: URL?
    /// A `url` that was only checked, not built (see `scan`'s `buildsURLs`).
    var plainURL: String?
    var mirrors: [URL] = []
    var path: String?
    var operation = ManifestEntry.Operation.download
    var method: String?
    var size: Int64?
    /// `sha256`, `sha512`, `sha1`, `md5`, in lower case.
    var digests = DigestValues()
    var headers: [HTTPField] = []
    /// `recursive`, when given.
    var recursive: Bool?
    /// `resumable`, when given.
    var resumable: ResumableProtocol?
    /// How many mirrors the line gives, built or not.
    var mirrorCount = 0
  }

  /// The fields of an entry, by the key that names each.
  private enum Field {
    case url, path, op, method, size, sha256, sha512, sha1, md5, headers, mirrors, recursive
    case resumable

    /// The field whose key is spelled `key` (UTF-8), if any: told apart by the first byte and
    /// the length (and the last byte where those agree), then compared in full.
    init?(key: UnsafeBufferPointer<UInt8>) {
      let field: Field
      switch (key.first, key.count) {
      case (UInt8(ascii: "u"), _): field = .url
      case (UInt8(ascii: "p"), _): field = .path
      case (UInt8(ascii: "o"), _): field = .op
      case (UInt8(ascii: "m"), 3): field = .md5
      case (UInt8(ascii: "m"), 6): field = .method
      case (UInt8(ascii: "m"), _): field = .mirrors
      case (UInt8(ascii: "s"), 4): field = key[3] == UInt8(ascii: "e") ? .size : .sha1
      case (UInt8(ascii: "s"), _): field = key.last == UInt8(ascii: "6") ? .sha256 : .sha512
      case (UInt8(ascii: "h"), _): field = .headers
      case (UInt8(ascii: "r"), _):
        field = key.count > 2 && key[2] == UInt8(ascii: "s") ? .resumable : .recursive
      default: return nil
      }
      let name = field.key
      guard key.count == name.utf8CodeUnitCount,
        memcmp(key.baseAddress!, name.utf8Start, key.count) == 0
      else { return nil }
      self = field
    }

    /// The key that names this field.
    var key: StaticString {
      switch self {
      case .url: "url"
      case .path: "path"
      case .op: "op"
      case .method: "method"
      case .size: "size"
      case .sha256: "sha256"
      case .sha512: "sha512"
      case .sha1: "sha1"
      case .md5: "md5"
      case .headers: "headers"
      case .mirrors: "mirrors"
      case .recursive: "recursive"
      case .resumable: "resumable"
      }
    }

    /// This field's bit in a set of fields.
    var bit: UInt16 {
      switch self {
      case .url: 1 << 0
      case .path: 1 << 1
      case .op: 1 << 2
      case .method: 1 << 3
      case .size: 1 << 4
      case .sha256: 1 << 5
      case .headers: 1 << 6
      case .mirrors: 1 << 7
      case .sha512: 1 << 8
      case .sha1: 1 << 9
      case .md5: 1 << 10
      case .recursive: 1 << 11
      case .resumable: 1 << 12
      }
    }

    /// The digest this field gives, for the digest fields.
    var digestAlgorithm: DigestAlgorithm? {
      switch self {
      case .sha256: .sha256
      case .sha512: .sha512
      case .sha1: .sha1
      case .md5: .md5
      case .url, .path, .op, .method, .size, .headers, .mirrors, .recursive, .resumable: nil
      }
    }
  }

  private var json: JSONLineParser
  private let buildsURLs: Bool
  private var fields = Fields()
  /// The first problem with a field's value, in the order written. Once there is one, later
  /// values are only read for their syntax.
  private var problem: ManifestLineError?
  /// The known fields read so far, one bit each, to find a repeated key.
  private var seen: UInt16 = 0
  /// Keys that name no field, for the same purpose (rare: such a line is an error anyway).
  private var unknownKeys = JSONKeySet()

  /// The manifest's extra URL schemes.
  private let schemes: ManifestURLSchemes

  private init(
    _ bytes: UnsafeBufferPointer<UInt8>, buildsURLs: Bool, schemes: ManifestURLSchemes
  ) {
    json = JSONLineParser(bytes)
    self.buildsURLs = buildsURLs
    self.schemes = schemes
  }

  /// The fields of the object that is all of `bytes` (which start with `{`), or why the line
  /// is bad. Without `buildsURLs` (for validation), a URL that `ManifestURL.isPlain` accepts
  /// is not built: a `url` is kept as written in `plainURL`, a mirror is left out.
  static func scan(
    _ bytes: UnsafeBufferPointer<UInt8>, buildsURLs: Bool,
    schemes: ManifestURLSchemes = ManifestURLSchemes()
  ) throws(ManifestLineError) -> Fields {
    var scanner = ManifestObjectScanner(bytes, buildsURLs: buildsURLs, schemes: schemes)
    do {
      try scanner.scanObject()
    } catch {
      throw ManifestLineError(
        error.isRepeatedKey
          ? error.reason : "invalid JSON at column \(error.column): \(error.reason)")
    }
    if let problem = scanner.problem { throw problem }
    // Moved out rather than copied: a copy would retain every field, then release it again
    // with the scanner.
    var fields = Fields()
    swap(&fields, &scanner.fields)
    return fields
  }

  // MARK: - The object

  private mutating func scanObject() throws(JSONLineParser.SyntaxError) {
    json.index += 1  // {
    json.skipWhiteSpace()
    if !json.consumeIf(UInt8(ascii: "}")) {
      while true {
        try scanMember()
        json.skipWhiteSpace()
        if json.consumeIf(UInt8(ascii: ",")) {
          json.skipWhiteSpace()
          continue
        }
        if json.consumeIf(UInt8(ascii: "}")) { break }
        throw json.error("expected ',' or '}' in an object, found \(json.describeCurrent())")
      }
    }
    json.skipWhiteSpace()
    if json.index < json.bytes.count {
      throw json.error("unexpected \(json.describeCurrent()) after the JSON value")
    }
  }

  /// Reads one `"key": value` member of the outermost object.
  private mutating func scanMember() throws(JSONLineParser.SyntaxError) {
    guard current == UInt8(ascii: "\"") else {
      throw json.error("expected a string key, found \(json.describeCurrent())")
    }
    let keyColumn = json.index + 1
    let field: Field?
    var unknownKey = ""
    if let plain = plainKey() {
      field = Field(key: plain)
      if field == nil { unknownKey = String(decoding: plain, as: UTF8.self) }
    } else {
      var key = try json.parseString()
      field = key.withUTF8 { Field(key: $0) }
      if field == nil { unknownKey = key }
    }
    let isNew: Bool
    if let field {
      isNew = seen & field.bit == 0
      seen |= field.bit
    } else {
      isNew = unknownKeys.insert(unknownKey)
    }
    guard isNew else {
      let key = field.map { "\($0.key)" } ?? unknownKey
      throw JSONLineParser.SyntaxError(
        column: keyColumn, reason: "repeated key \(ManifestText.quoted(key))", isRepeatedKey: true)
    }
    json.skipWhiteSpace()
    guard json.consumeIf(UInt8(ascii: ":")) else {
      throw json.error("expected ':' after a key, found \(json.describeCurrent())")
    }
    json.skipWhiteSpace()
    guard let field else {
      _ = try json.parseValue(depth: 1)
      note("unknown field \(ManifestText.quoted(unknownKey))")
      return
    }
    try scanValue(of: field)
  }

  /// A key at the reading position (its opening quote) written without escapes: its bytes,
  /// with the reading position moved past its closing quote. `nil`, with the position left
  /// alone, for any other key (which `parseString` then reads and checks).
  private mutating func plainKey() -> UnsafeBufferPointer<UInt8>? {
    let start = json.index + 1
    var end = start
    while end < json.bytes.count {
      let byte = json.bytes[end]
      if byte == UInt8(ascii: "\"") {
        json.index = end + 1
        return UnsafeBufferPointer(rebasing: json.bytes[start..<end])
      }
      if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
      end += 1
    }
    return nil
  }

  // MARK: - Fields

  private mutating func scanValue(of field: Field) throws(JSONLineParser.SyntaxError) {
    switch field {
    case .url:
      guard let string = try string(field) else { return }
      if !buildsURLs, ManifestURL.isPlain(string) {
        fields.plainURL = string
        return
      }
      switch ManifestURL.parse(string, field: "\"url\"", schemes: schemes) {
      case .success(let url): fields.url = url
      case .failure(let failure): note(failure)
      }
    case .path:
      guard let string = try string(field) else { return }
      // A folder (`dir/`) is kept with its `/`, for a scheme's folder (an object store's
      // prefix); `path(of:)` refuses it for anything else.
      let bytes = string.utf8
      var end = bytes.endIndex
      while bytes.distance(from: bytes.startIndex, to: end) > 1,
        bytes[bytes.index(before: end)] == UInt8(ascii: "/")
      {
        end = bytes.index(before: end)
      }
      let file = string[..<end]
      switch ManifestPath.normalize(String(file)) {
      case .success(let path): fields.path = file.endIndex == string.endIndex ? path : path + "/"
      case .failure(let failure): note(failure)
      }
    case .op:
      guard let string = try string(field) else { return }
      guard let operation = ManifestEntry.Operation(rawValue: string) else {
        return note("\"op\" must be \"download\" or \"upload\"")
      }
      fields.operation = operation
    case .method:
      guard let string = try string(field) else { return }
      guard string == "PUT" || string == "POST" else {
        return note("\"method\" must be \"PUT\" or \"POST\"")
      }
      fields.method = string
    case .size:
      try scanSize()
    case .sha256, .sha512, .sha1, .md5:
      guard let string = try string(field), let algorithm = field.digestAlgorithm else { return }
      // Kept in lower case; most digests are written that way already.
      guard let hex = Hex.normalized(string, length: algorithm.hexLength) else {
        return note("\"\(field.key)\" must be \(algorithm.hexLength) hex digits")
      }
      fields.digests[algorithm] = hex
    case .headers:
      try scanHeaders()
    case .mirrors:
      try scanMirrors()
    case .recursive:
      let value = try json.parseValue(depth: 1)
      guard problem == nil else { return }
      guard case .bool(let flag) = value else {
        return note("\"recursive\" must be true or false, not \(value.kindName)")
      }
      fields.recursive = flag
    case .resumable:
      guard let string = try string(field) else { return }
      guard let kind = ResumableProtocol(rawValue: string) else {
        return note("\"resumable\" must be \"tus\" or \"ietf\"")
      }
      fields.resumable = kind
    }
  }

  /// A string value, or `nil` (after reading the value and noting the problem) when the value
  /// is not a string or an earlier field already has a problem.
  private mutating func string(_ field: Field) throws(JSONLineParser.SyntaxError) -> String? {
    guard current == UInt8(ascii: "\"") else {
      let value = try json.parseValue(depth: 1)
      note("\"\(field.key)\" must be a string, not \(value.kindName)")
      return nil
    }
    let string = try json.parseString()
    return problem == nil ? string : nil
  }

  private mutating func scanSize() throws(JSONLineParser.SyntaxError) {
    guard let first = current, first == UInt8(ascii: "-") || Self.isDigit(first) else {
      let value = try json.parseValue(depth: 1)
      return note("\"size\" must be a number, not \(value.kindName)")
    }
    let span = try json.scanNumber()
    guard problem == nil else { return }
    switch JSONNumber.wholeNumber(of: UnsafeBufferPointer(rebasing: json.bytes[span])) {
    case .value(let whole): fields.size = whole
    case .negative: note("\"size\" must not be negative")
    case .notWhole: note("\"size\" must be a whole number of bytes")
    case .tooLarge: note("\"size\" is too large (at most 2^63-1)")
    }
  }

  /// Reads `headers`: an object whose keys are header names, each value a string.
  private mutating func scanHeaders() throws(JSONLineParser.SyntaxError) {
    guard current == UInt8(ascii: "{") else {
      let value = try json.parseValue(depth: 1)
      return note("\"headers\" must be an object, not \(value.kindName)")
    }
    json.index += 1  // {
    var names = JSONKeySet()
    json.skipWhiteSpace()
    if json.consumeIf(UInt8(ascii: "}")) { return }
    while true {
      guard current == UInt8(ascii: "\"") else {
        throw json.error("expected a string key, found \(json.describeCurrent())")
      }
      let nameColumn = json.index + 1
      let name = try json.parseString()
      guard names.insert(name) else {
        throw JSONLineParser.SyntaxError(
          column: nameColumn, reason: "repeated key \(ManifestText.quoted(name))",
          isRepeatedKey: true)
      }
      json.skipWhiteSpace()
      guard json.consumeIf(UInt8(ascii: ":")) else {
        throw json.error("expected ':' after a key, found \(json.describeCurrent())")
      }
      json.skipWhiteSpace()
      if current == UInt8(ascii: "\"") {
        let value = try json.parseString()
        if problem == nil {
          let header = HTTPField(name, value)
          if let reason = header.userHeaderProblem {
            note(reason)
          } else {
            fields.headers.append(header)
          }
        }
      } else {
        let value = try json.parseValue(depth: 2)
        note("header \(ManifestText.quoted(name)) must be a string, not \(value.kindName)")
      }
      json.skipWhiteSpace()
      if json.consumeIf(UInt8(ascii: ",")) {
        json.skipWhiteSpace()
        continue
      }
      if json.consumeIf(UInt8(ascii: "}")) { return }
      throw json.error("expected ',' or '}' in an object, found \(json.describeCurrent())")
    }
  }

  /// Reads `mirrors`: an array of URL strings.
  private mutating func scanMirrors() throws(JSONLineParser.SyntaxError) {
    guard current == UInt8(ascii: "[") else {
      let value = try json.parseValue(depth: 1)
      return note("\"mirrors\" must be an array, not \(value.kindName)")
    }
    json.index += 1  // [
    json.skipWhiteSpace()
    if json.consumeIf(UInt8(ascii: "]")) { return }
    var number = 0
    while true {
      number += 1
      if current == UInt8(ascii: "\"") {
        let string = try json.parseString()
        fields.mirrorCount += 1
        if problem == nil, buildsURLs || !ManifestURL.isPlain(string) {
          switch ManifestURL.parse(string, field: "\"mirrors\" item \(number)", schemes: schemes) {
          case .success(let url): fields.mirrors.append(url)
          case .failure(let failure): note(failure)
          }
        }
      } else {
        let value = try json.parseValue(depth: 2)
        note("\"mirrors\" item \(number) must be a string, not \(value.kindName)")
      }
      json.skipWhiteSpace()
      if json.consumeIf(UInt8(ascii: ",")) {
        json.skipWhiteSpace()
        continue
      }
      if json.consumeIf(UInt8(ascii: "]")) { return }
      throw json.error("expected ',' or ']' in an array, found \(json.describeCurrent())")
    }
  }

  // MARK: - Helpers

  /// The byte at the reading position, `nil` at the end of the line.
  private var current: UInt8? {
    json.index < json.bytes.count ? json.bytes[json.index] : nil
  }

  /// Keeps `reason` unless an earlier field already has a problem.
  private mutating func note(_ reason: String) {
    note(ManifestLineError(reason))
  }

  private mutating func note(_ error: ManifestLineError) {
    if problem == nil { problem = error }
  }

  private static func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
  }
}
