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
///
/// Two ways in, one set of rules: `parse` builds the entry that the transfers need;
/// `check`, for `Manifest.validate()`, applies the same rules and reports the same errors
/// but keeps only what validation uses, and skips building a download's URLs when
/// `ManifestURL.isPlain` already shows they are good (building a `URL` is the larger part
/// of reading a typical line).
enum ManifestLineParser {
  /// The entry on `bytes` (one line without its line break), or `nil` for a blank or
  /// comment line. `recursive` (`--recursive`): a download whose URL ends in `/` is a folder.
  static func parse(
    _ bytes: UnsafeBufferPointer<UInt8>, line: Int,
    schemes: ManifestURLSchemes = ManifestURLSchemes(), recursive: Bool = false
  ) throws(ManifestLineError) -> ManifestEntry? {
    guard let content = try content(of: bytes) else { return nil }
    let text = String(decoding: bytes, as: UTF8.self)
    guard content[0] == UInt8(ascii: "{") else {
      let trimmed =
        content.count == bytes.count ? text : String(decoding: content, as: UTF8.self)
      if recursive, let url = try folderURL(content, text: trimmed, schemes: schemes) {
        return ManifestEntry(
          line: line, text: text, url: url, path: try folderPath(for: url), recursive: true)
      }
      let (url, path) = try parseBareURL(content, text: trimmed, schemes: schemes)
      return ManifestEntry(line: line, text: text, url: url, path: path)
    }
    var fields = try ManifestObjectScanner.scan(content, buildsURLs: true, schemes: schemes)
    let (path, isFolder) = try path(of: &fields, recursive: recursive, schemes: schemes)
    return ManifestEntry(
      line: line, text: text, operation: fields.operation, url: try url(of: fields),
      mirrors: fields.mirrors, path: path, method: fields.method, size: fields.size,
      headers: fields.headers, manifestDigests: fields.digests, recursive: isFolder,
      resumable: fields.resumable)
  }

  /// What validation needs of the line on `bytes`, or `nil` for a blank or comment line;
  /// throws exactly what `parse` throws.
  static func check(
    _ bytes: UnsafeBufferPointer<UInt8>, line: Int,
    schemes: ManifestURLSchemes = ManifestURLSchemes(), recursive: Bool = false
  ) throws(ManifestLineError) -> ManifestLineCheck? {
    guard let content = try content(of: bytes) else { return nil }
    guard content[0] == UInt8(ascii: "{") else {
      let text = String(decoding: content, as: UTF8.self)
      if recursive, let url = try folderURL(content, text: text, schemes: schemes) {
        return ManifestLineCheck(
          line: line, operation: .download, path: try folderPath(for: url), url: url)
      }
      if ManifestURL.isPlain(text) {
        let path = try ManifestURL.defaultNameOfPlain(text).get()
        return ManifestLineCheck(line: line, operation: .download, path: path, url: nil)
      }
      let (url, path) = try parseBareURL(content, text: text, schemes: schemes)
      return ManifestLineCheck(line: line, operation: .download, path: path, url: url)
    }
    var fields = try ManifestObjectScanner.scan(content, buildsURLs: false, schemes: schemes)
    let (path, isFolder) = try path(of: &fields, recursive: recursive, schemes: schemes)
    return ManifestLineCheck(
      line: line, operation: fields.operation, path: path, method: fields.method,
      size: fields.size, digests: fields.digests, isFolder: isFolder,
      url: fields.operation == .upload ? try url(of: fields) : fields.url,
      resumable: fields.resumable)
  }

  /// The line without the JSON white space around it (spaces, tabs and carriage returns: a
  /// line cannot hold a line feed), or `nil` for a blank or comment line; throws when the
  /// line is not well-formed UTF-8. A carriage return is set aside too, as JSON allows:
  /// `\r{"url": ...}` is an object line, not "a JSON object, not an object".
  private static func content(of bytes: UnsafeBufferPointer<UInt8>) throws(ManifestLineError)
    -> UnsafeBufferPointer<UInt8>?
  {
    if let offset = UTF8Validation.firstInvalidOffset(in: bytes) {
      throw ManifestLineError("invalid UTF-8 at byte \(offset + 1)")
    }
    var start = 0
    var end = bytes.count
    while start < end, isSpace(bytes[start]) { start += 1 }
    while end > start, isSpace(bytes[end - 1]) { end -= 1 }
    guard start < end, bytes[start] != UInt8(ascii: "#") else { return nil }
    return UnsafeBufferPointer(rebasing: bytes[start..<end])
  }

  /// Whether `byte` is JSON white space other than a line feed: space, tab, carriage return.
  private static func isSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0D
  }

  /// The URL and default path of a line that is not a JSON object (`content`, also as
  /// `text`): a bare URL, or else an error saying what the line is.
  private static func parseBareURL(
    _ content: UnsafeBufferPointer<UInt8>, text: String, schemes: ManifestURLSchemes
  ) throws(ManifestLineError) -> (URL, String) {
    if ManifestURL.isPlain(text) {
      // The common line: its name is read from its bytes, as validation read it.
      let url = try ManifestURL.parsePlain(text, field: "URL").get()
      if let scheme = schemes.folder(url) { return (url, scheme.defaultFolderPath(for: url)) }
      return (url, try ManifestURL.defaultNameOfPlain(text).get())
    }
    if let schemeLength = ManifestURL.schemeLength(in: content),
      content.dropFirst(schemeLength + 1).starts(with: "//".utf8)
    {
      let url = try ManifestURL.parse(text, field: "URL", schemes: schemes).get()
      if let scheme = schemes.folder(url) { return (url, scheme.defaultFolderPath(for: url)) }
      return (url, try defaultPath(for: url))
    }
    if case .success(let value) = Result(catching: { () throws(JSONLineParser.SyntaxError) in
      try JSONLineParser.parse(content)
    }) {
      throw ManifestLineError("a line must be a JSON object, not \(value.kindName)")
    }
    throw ManifestLineError("not a JSON object and not an http(s) URL")
  }

  /// The URL of a bare line that names a folder (ends in `/`, no query), `nil` for any
  /// other line; a scheme's folder (an object store's prefix) is listed as such, never as a
  /// web folder.
  private static func folderURL(
    _ content: UnsafeBufferPointer<UInt8>, text: String, schemes: ManifestURLSchemes
  ) throws(ManifestLineError) -> URL? {
    guard text.hasSuffix("/"), !text.contains("?"), ManifestURL.schemeLength(in: content) != nil
    else { return nil }
    let url = try ManifestURL.parse(text, field: "URL", schemes: schemes).get()
    return isFolder(url, schemes: schemes) ? url : nil
  }

  /// Whether `url` names a web folder: its path ends in `/` and it has no query.
  private static func isFolder(_ url: URL, schemes: ManifestURLSchemes) -> Bool {
    !schemes.namesFolder(url) && url.query(percentEncoded: true) == nil
      && url.path(percentEncoded: true).hasSuffix("/")
  }

  /// The default path of a folder entry: the URL's last non-empty segment, as a folder
  /// (`https://host/pub/tree/` lands in `tree/`).
  private static func folderPath(for url: URL) throws(ManifestLineError) -> String {
    var path = Substring(url.path(percentEncoded: true))
    while path.hasSuffix("/") { path.removeLast() }
    guard !path.isEmpty else {
      throw ManifestLineError("no folder name in URL; give \"path\" (a folder ending in \"/\")")
    }
    return try ManifestPath.defaultName(percentEncodedPath: String(path)).get() + "/"
  }

  /// The rules of a folder entry (`recursive`), and its path.
  private static func folderPath(
    of fields: ManifestObjectScanner.Fields, schemes: ManifestURLSchemes
  )
    throws(ManifestLineError) -> String
  {
    if fields.operation == .upload {
      guard fields.resumable == nil else {
        throw ManifestLineError("a folder upload is not resumable: each file goes with PUT")
      }
      guard fields.path != nil else {
        throw ManifestLineError("a folder upload needs \"path\", a local folder ending in \"/\"")
      }
      guard fields.method != "POST" else {
        throw ManifestLineError("a folder upload sends each file with PUT, not POST")
      }
    }
    guard fields.mirrorCount == 0 else {
      throw ManifestLineError("a recursive entry has no mirrors")
    }
    guard fields.size == nil, fields.digests.isEmpty else {
      throw ManifestLineError(
        "a recursive entry has no \"size\" or digest: its files' come from the listing")
    }
    let url = try url(of: fields)
    guard isFolder(url, schemes: schemes) else {
      throw ManifestLineError("the \"url\" of a recursive entry must end in \"/\", without a query")
    }
    guard let path = fields.path else { return try folderPath(for: url) }
    guard path.hasSuffix("/") else {
      throw ManifestLineError("the \"path\" of a recursive entry must end in \"/\"")
    }
    return path
  }

  /// Applies the rules that concern more than one field of an object, and returns the
  /// entry's path (the one given, or for a download the URL's default name) and whether it
  /// is a folder to mirror (`recursive`: `--recursive`, for a URL ending in `/`). A folder
  /// upload to a scheme's folder (an object store's prefix) goes to the URL the scheme
  /// names for it (`ManifestURLScheme.uploadFolderURL`), which `fields.url` becomes.
  private static func path(
    of fields: inout ManifestObjectScanner.Fields, recursive: Bool, schemes: ManifestURLSchemes
  ) throws(ManifestLineError) -> (String, Bool) {
    guard fields.url != nil || fields.plainURL != nil else {
      throw ManifestLineError("missing \"url\"")
    }
    var prefix = fields.url.map(schemes.namesFolder) ?? false
    let folderUpload =
      fields.operation == .upload && fields.recursive != false
      && (fields.recursive == true || fields.path?.hasSuffix("/") == true)
    if prefix, folderUpload, let url = fields.url,
      let target = schemes.folder(url)?.uploadFolderURL(for: url)
    {
      fields.url = target
      prefix = false
    }
    if !prefix,
      folderUpload
        || (fields.operation == .download
          && fields.recursive ?? (recursive && endsInSlash(fields, schemes: schemes)))
    {
      return (try folderPath(of: fields, schemes: schemes), true)
    }
    return (try filePath(of: fields, schemes: schemes), false)
  }

  /// Whether the object's `url` ends in `/` without a query (for `--recursive`).
  private static func endsInSlash(
    _ fields: ManifestObjectScanner.Fields, schemes: ManifestURLSchemes
  ) -> Bool {
    guard fields.operation == .download else { return false }
    if let url = fields.url { return isFolder(url, schemes: schemes) }
    guard let text = fields.plainURL else { return false }
    return text.hasSuffix("/") && !text.contains("?")
  }

  /// The path of an entry that is not a folder to mirror.
  private static func filePath(
    of fields: ManifestObjectScanner.Fields, schemes: ManifestURLSchemes
  ) throws(ManifestLineError) -> String {
    if let url = fields.url, let scheme = schemes.folder(url) {
      guard fields.operation == .download else {
        throw ManifestLineError("\(scheme.folderName) can only be downloaded")
      }
      guard fields.mirrors.isEmpty else {
        throw ManifestLineError("\(scheme.folderName) has no mirrors")
      }
      let path = fields.path ?? scheme.defaultFolderPath(for: url)
      guard path.isEmpty || path.hasSuffix("/") else {
        throw ManifestLineError("the \"path\" of \(scheme.folderName) must end in \"/\"")
      }
      return path
    }
    if let scheme = fields.mirrors.lazy.compactMap(schemes.folder).first {
      throw ManifestLineError("a mirror cannot be \(scheme.folderName)")
    }
    if let path = fields.path, path.hasSuffix("/") {
      throw ManifestLineError("\"path\" must name a file, not end in \"/\"")
    }
    switch fields.operation {
    case .download:
      if fields.method != nil { throw ManifestLineError("\"method\" is only for uploads") }
      if fields.resumable != nil {
        throw ManifestLineError("\"resumable\" is only for uploads")
      }
      if let path = fields.path { return path }
      return try defaultPath(for: try url(of: fields))
    case .upload:
      guard let path = fields.path else { throw ManifestLineError("an upload needs \"path\"") }
      if fields.resumable != nil, fields.method != nil {
        throw ManifestLineError(
          "\"method\" cannot be given with \"resumable\": the protocol fixes the methods")
      }
      return path
    }
  }

  /// The object's `url`, built now if it was only checked; `path(of:)` has made sure there
  /// is one.
  private static func url(of fields: ManifestObjectScanner.Fields) throws(ManifestLineError)
    -> URL
  {
    if let url = fields.url { return url }
    // A plain URL always builds; `parse` states the rule all the same.
    return try ManifestURL.parse(fields.plainURL ?? "", field: "\"url\"").get()
  }

  private static func defaultPath(for url: URL) throws(ManifestLineError) -> String {
    try ManifestPath.defaultName(percentEncodedPath: url.path(percentEncoded: true)).get()
  }
}
