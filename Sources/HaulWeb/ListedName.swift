import Foundation
import HaulCore

/// A name a web or WebDAV listing gives, resolved against the folder listed: what every
/// listing format shares (HTML entities, percent-encoding, relative and absolute links,
/// which links count as the folder's children).
package struct ListedName: Sendable, Hashable {
  /// The child's name, percent-decoded (it may still hold `/` or be `..`: the lister refuses
  /// such a name as `path_refused`).
  package var name: String
  /// Whether it is a folder (its link ends in `/`, or the listing says so).
  package var isFolder: Bool
  /// Its exact size in bytes, when the listing gives one.
  package var size: Int64?
  /// Its modification time, when the listing gives one.
  package var modified: Date?
  /// Its entity tag, when the listing gives one (a WebDAV `getetag`).
  package var etag: String?
  /// Whether it may be a folder all the same: its page links folders without the trailing
  /// `/`, so that a name not marked as a folder says nothing (h2o's index pages).
  package var mayBeFolder = false

  package init(
    name: String, isFolder: Bool, size: Int64? = nil, modified: Date? = nil, etag: String? = nil
  ) {
    self.name = name
    self.isFolder = isFolder
    self.size = size
    self.modified = modified
    self.etag = etag
  }

  /// The child `href` names in `folder` (a URL ending in `/`): its name and whether it is a
  /// folder, or `nil` when it is no child of the folder: another origin, the folder itself
  /// or above it, deeper than one segment, or a link with a query or a fragment (sort
  /// links, `?C=N;O=D`). `href` is as written in the page, HTML entities decoded.
  /// `endsInSlash` is whether `folder`'s path ends in `/`, when the caller knows it (a page
  /// asks it once for all its links).
  package static func child(_ href: String, of folder: URL, endsInSlash: Bool? = nil) -> (
    name: String, isFolder: Bool
  )? {
    let inFolder = endsInSlash ?? folder.path(percentEncoded: true).hasSuffix("/")
    // A link without white space at its ends (nearly all) is read as it is.
    if inFolder, let name = plainChild(href) { return name }
    // ASCII white space only, as browsers strip it from a link.
    let trimmed = href.trimmingASCIIWhitespace()
    if inFolder, let name = plainChild(trimmed) { return name }
    guard !trimmed.isEmpty, !trimmed.hasPrefix("#"),
      let link = URL(string: validURLText(trimmed), relativeTo: folder)?.absoluteURL,
      link.query(percentEncoded: true) == nil, link.fragment(percentEncoded: true) == nil,
      link.scheme?.lowercased() == folder.scheme?.lowercased(),
      link.host(percentEncoded: false)?.lowercased()
        == folder.host(percentEncoded: false)?.lowercased(),
      effectivePort(link) == effectivePort(folder)
    else { return nil }
    var base = segments(folder.path(percentEncoded: true))
    if base.last == "" { base.removeLast() }
    var own = segments(link.path(percentEncoded: true))
    let isFolder = own.last == ""
    if isFolder { own.removeLast() }
    guard own.count == base.count + 1, own.starts(with: base) else { return nil }
    guard let name = own.last, !name.isEmpty else { return nil }
    return (name, isFolder)
  }

  /// The child a link of one relative segment names (`name`, `name/`, as index pages
  /// mostly give them) in a folder whose path ends in `/`, read without building a URL:
  /// what `child` would find, since such a link resolves to the folder's path plus that
  /// segment. `nil` for any other link, which `child` resolves as a URL, and for one with
  /// ASCII white space at either end, which `child` trims first.
  private static func plainChild(_ href: String) -> (name: String, isFolder: Bool)? {
    var contiguous = href
    return contiguous.withUTF8 { bytes in
      if let first = bytes.first, let last = bytes.last, isEdgeSpace(first) || isEdgeSpace(last) {
        return nil
      }
      let isFolder = bytes.last == UInt8(ascii: "/")
      let body = UnsafeBufferPointer(rebasing: bytes.dropLast(isFolder ? 1 : 0))
      // One pass over the bytes: what refuses the link, and whether it holds an escape.
      var (dots, escaped) = (0, false)
      for byte in body {
        switch byte {
        case 0x2F, 0x3F, 0x23, 0x3A: return nil
        case UInt8(ascii: "."): dots += 1
        case UInt8(ascii: "%"): escaped = true
        default: break
        }
      }
      guard !body.isEmpty, !(body.count <= 2 && dots == body.count) else { return nil }
      // A file's link is its name: the link's own text, not a copy.
      let text = isFolder ? String(decoding: body, as: UTF8.self) : href
      return (escaped ? percentDecoded(Substring(text)) : text, isFolder)
    }
  }

  /// The white space `trimmingASCIIWhitespace` strips from a link's ends.
  private static func isEdgeSpace(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
      || byte == UInt8(ascii: "\n")
  }

  /// The path's segments, each percent-decoded after the split (a `%2F` stays inside its
  /// segment), a leading empty segment dropped; `a/` ends in `""`.
  private static func segments(_ path: String) -> [String] {
    var parts = path.split(separator: "/", omittingEmptySubsequences: false).map {
      percentDecoded($0)
    }
    if parts.first == "" { parts.removeFirst() }
    return parts
  }

  /// `text` with each `%XX` escape decoded; a `%` that starts no escape stays as written,
  /// and `text` stays as it is when the decoded bytes are no UTF-8.
  static func percentDecoded(_ text: Substring) -> String {
    guard text.utf8Contains(UInt8(ascii: "%")) else { return String(text) }
    return String(validating: PercentDecoding.bytes(text), as: UTF8.self) ?? String(text)
  }

  private static func effectivePort(_ url: URL) -> Int? {
    url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
  }

  /// `text` with every byte a URL cannot hold percent-encoded (spaces, non-ASCII letters,
  /// a `%` that starts no escape), as browsers read a link.
  static func validURLText(_ text: String) -> String {
    let bytes = Array(text.utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    for (index, byte) in bytes.enumerated() {
      if byte == UInt8(ascii: "%"), isHex(bytes, index + 1),
        isHex(bytes, index + 2)
      {
        out.append(byte)
      } else if byte > 0x20, byte < 0x7F, !"%\"<>\\^`{|}".utf8.contains(byte) {
        out.append(byte)
      } else {
        let digits = Array("0123456789ABCDEF".utf8)
        out += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 15)]]
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  private static func isHex(_ bytes: [UInt8], _ index: Int) -> Bool {
    index < bytes.count && Hex.value(of: bytes[index]) != nil
  }

  /// The URL of the child `name` in `folder`, `name` percent-encoded as one segment.
  package static func url(of name: String, isFolder: Bool, in folder: URL) -> URL? {
    URL(string: urlText(of: name, isFolder: isFolder, in: folder))
  }

  /// The text of `url(of:isFolder:in:)`, without parsing it: the folder's URL and one
  /// segment of path characters, a valid URL as the folder's is.
  package static func urlText(of name: String, isFolder: Bool, in folder: URL) -> String {
    urlText(of: name, isFolder: isFolder, inFolderText: folder.absoluteString)
  }

  /// `urlText(of:isFolder:in:)` for the folder whose URL's text is `folderText`, as a page
  /// of many files reads it once.
  package static func urlText(of name: String, isFolder: Bool, inFolderText folderText: String)
    -> String
  {
    let base = folderText.utf8.last == UInt8(ascii: "/") ? folderText : folderText + "/"
    return urlText(of: name, isFolder: isFolder, below: base)
  }

  /// `urlText(of:isFolder:inFolderText:)` for a folder's URL text `base` that ends in `/`,
  /// as a page of many files makes it once.
  package static func urlText(of name: String, isFolder: Bool, below base: String) -> String {
    var contiguous = name
    let plain = contiguous.withUTF8 { $0.allSatisfy(isSegmentByte) }
    let segment =
      plain ? name : name.addingPercentEncoding(withAllowedCharacters: segmentCharacters) ?? ""
    var text = base.joined(with: segment)
    if isFolder { text += "/" }
    return text
  }

  /// What a path segment may hold unescaped: RFC 3986 `pchar` less `;` and `=` (read as
  /// parameters by some servers) and `+` (read as a space by some).
  private static let segmentASCII =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*,:@"
  private static let segmentCharacters = CharacterSet(charactersIn: segmentASCII)

  /// Whether `segmentASCII` holds `byte`, read from its bits (bytes 0-63, then 64-127), to
  /// pass a name that needs no escape as it is.
  static func isSegmentByte(_ byte: UInt8) -> Bool {
    let (low, high): (UInt64, UInt64) = (0x07FF_77D2_0000_0000, 0x47FF_FFFE_87FF_FFFF)
    switch byte {
    case 0..<64: return low >> byte & 1 == 1
    case 64..<128: return high >> (byte - 64) & 1 == 1
    default: return false
    }
  }

  /// `text` with HTML and XML character references decoded: `&amp;`, `&lt;`, `&gt;`,
  /// `&quot;`, `&apos;`, `&nbsp;`, `&#NN;`, `&#xHH;`; any other `&` is left as written.
  package static func decodeEntities(_ text: Substring) -> String {
    guard text.utf8Contains(UInt8(ascii: "&")) else { return String(text) }
    var out = ""
    var rest = text[...]
    while let amp = rest.firstIndex(of: "&") {
      out += rest[..<amp]
      let after = rest[rest.index(after: amp)...]
      guard let semi = after.prefix(12).firstIndex(of: ";") else {
        out += "&"
        rest = after
        continue
      }
      let reference = after[..<semi]
      if let decoded = decodeReference(reference) {
        out += decoded
        rest = after[after.index(after: semi)...]
      } else {
        out += "&"
        rest = after
      }
    }
    return out + rest
  }

  private static func decodeReference(_ reference: Substring) -> String? {
    switch reference {
    case "amp": return "&"
    case "lt": return "<"
    case "gt": return ">"
    case "quot": return "\""
    case "apos": return "'"
    case "nbsp": return "\u{A0}"
    default: break
    }
    guard reference.hasPrefix("#") else { return nil }
    let digits = reference.dropFirst()
    let value =
      digits.hasPrefix("x") || digits.hasPrefix("X")
      ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
    return value.flatMap(Unicode.Scalar.init).map { String(Character($0)) }
  }
}
