import Foundation
import HaulCore

/// A folder's index page as web servers give it, read into the children it names.
///
/// HTML pages (nginx `autoindex`, Apache `mod_autoindex` plain and fancy, lighttpd
/// `mod_dirlisting`, Caddy `browse`, Python `http.server`, `rclone serve http`) are read for
/// their links alone: every `<a href>` that names a child of the folder (`ListedName.child`)
/// counts, once, in page order; sort links, parent links, the folder's own link and links
/// elsewhere do not. The text around the links (sizes such as `56K`, dates) is never read:
/// it is rounded or localised. JSON listings (nginx `autoindex_format json`, Caddy `browse`
/// asked with `Accept: application/json`) give exact sizes and mtimes, which are kept.
package enum IndexPage {
  /// The children `body` names, listed for `folder`; `nil` when it is neither an HTML page
  /// nor a JSON listing. `contentType` is the answer's `Content-Type`.
  package static func parse(_ body: [UInt8], contentType: String?, folder: URL) -> [ListedName]? {
    let type = contentType?.lowercased() ?? ""
    let first = body.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
    if type.contains("json") || (!type.contains("html") && first == UInt8(ascii: "[")) {
      return json(body, folder: folder)
    }
    guard type.contains("html") || first == UInt8(ascii: "<") else { return nil }
    return html(body, folder: folder)
  }

  /// The children an HTML page's links name. A page that links its parent as `..`, without
  /// the trailing `/` (h2o's `file.dirlisting`), links its folders so too: each name it does
  /// not mark as a folder `mayBeFolder`.
  package static func html(_ body: [UInt8], folder: URL) -> [ListedName] {
    let hrefs = links(in: body)
    // Room for every link at once: grown link by link, the set rehashed each name it held.
    var names: [ListedName] = []
    names.reserveCapacity(hrefs.count)
    var seen = Set<String>(minimumCapacity: hrefs.count)
    var unmarked = false
    let endsInSlash = folder.path(percentEncoded: true).hasSuffix("/")
    for href in hrefs {
      guard let (name, isFolder) = ListedName.child(href, of: folder, endsInSlash: endsInSlash)
      else {
        if href.trimmingASCIIWhitespace() == ".." { unmarked = true }
        continue
      }
      guard seen.insert(isFolder ? name + "/" : name).inserted else { continue }
      names.append(ListedName(name: name, isFolder: isFolder))
    }
    if unmarked {
      for index in names.indices where !names[index].isFolder { names[index].mayBeFolder = true }
    }
    return names
  }

  /// The `href` values of `body`'s `<a>` elements, entities decoded, in order.
  static func links(in page: [UInt8]) -> [String] {
    page.withUnsafeBufferPointer { links(in: $0) }
  }

  private static func links(in body: UnsafeBufferPointer<UInt8>) -> [String] {
    var hrefs: [String] = []
    var index = 0
    let count = body.count
    while index + 2 < count, let base = body.baseAddress {
      guard body[index] == UInt8(ascii: "<"), body[index + 1] | 0x20 == UInt8(ascii: "a"),
        isSpace(body[index + 2])
      else {
        // On to the next `<`, found by `memchr` rather than byte by byte.
        guard let next = memchr(base + index + 1, Int32(UInt8(ascii: "<")), count - index - 1)
        else { break }
        index = base.distance(to: next.assumingMemoryBound(to: UInt8.self))
        continue
      }
      index += 2
      // The tag's attributes, up to its `>` (a `>` inside a quoted value belongs to it).
      while index < count, body[index] != UInt8(ascii: ">") {
        while index < count, isSpace(body[index]) { index += 1 }
        let nameStart = index
        while index < count, !isSpace(body[index]), body[index] != UInt8(ascii: "="),
          body[index] != UInt8(ascii: ">")
        {
          index += 1
        }
        let isHref =
          index - nameStart == 4 && body[nameStart] | 0x20 == UInt8(ascii: "h")
          && body[nameStart + 1] | 0x20 == UInt8(ascii: "r")
          && body[nameStart + 2] | 0x20 == UInt8(ascii: "e")
          && body[nameStart + 3] | 0x20 == UInt8(ascii: "f")
        while index < count, isSpace(body[index]) { index += 1 }
        guard index < count, body[index] == UInt8(ascii: "=") else {
          if index == nameStart { index += 1 }
          continue
        }
        index += 1
        while index < count, isSpace(body[index]) { index += 1 }
        let value: Slice<UnsafeBufferPointer<UInt8>>
        if index < count, body[index] == UInt8(ascii: "\"") || body[index] == UInt8(ascii: "'") {
          let quote = body[index]
          let start = index + 1
          index = start
          while index < count, body[index] != quote { index += 1 }
          value = body[start..<min(index, count)]
          index += 1
        } else {
          let start = index
          while index < count, !isSpace(body[index]), body[index] != UInt8(ascii: ">") {
            index += 1
          }
          value = body[start..<index]
        }
        if isHref {
          let text = String(decoding: value, as: UTF8.self)
          hrefs.append(
            value.contains(UInt8(ascii: "&")) ? ListedName.decodeEntities(Substring(text)) : text)
        }
      }
    }
    return hrefs
  }

  private static func isSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
  }

  /// The children of a JSON listing: an array of objects with `name` (and `url`, Caddy),
  /// `type` `"directory"` (nginx) or `is_dir` (Caddy), `size`, and `mtime` (an HTTP date,
  /// nginx) or `mod_time` (RFC 3339, Caddy). `nil` when it is not such an array.
  package static func json(_ body: [UInt8], folder: URL) -> [ListedName]? {
    let value: JSONValue
    do throws(JSONLineParser.SyntaxError) {
      value = try body.withUnsafeBufferPointer { bytes throws(JSONLineParser.SyntaxError) in
        try JSONLineParser.parse(bytes)
      }
    } catch {
      return nil
    }
    guard case .array(let items) = value else { return nil }
    var names: [ListedName] = []
    var seen = Set<String>()
    for item in items {
      guard case .object(let members) = item else { return nil }
      var fields: [String: JSONValue] = [:]
      for member in members { fields[member.key] = member.value }
      guard case .string(var name)? = fields["name"] else { return nil }
      var isFolder = false
      if case .string("directory")? = fields["type"] { isFolder = true }
      if case .bool(true)? = fields["is_dir"] { isFolder = true }
      if case .string(let href)? = fields["url"] {
        guard let child = ListedName.child(href, of: folder) else { continue }
        (name, isFolder) = (child.name, isFolder || child.isFolder)
      } else if name.hasSuffix("/") {
        name.removeLast()
        isFolder = true
      }
      guard !name.isEmpty, name != ".", seen.insert(name + (isFolder ? "/" : "")).inserted
      else { continue }
      var listed = ListedName(name: name, isFolder: isFolder)
      if !isFolder, case .number(let number)? = fields["size"], let size = Int64(number.text),
        size >= 0
      {
        listed.size = size
      }
      if case .string(let text)? = fields["mtime"] { listed.modified = HTTPDate.parse(text) }
      if case .string(let text)? = fields["mod_time"] { listed.modified = rfc3339(text) }
      names.append(listed)
    }
    return names
  }

  /// An RFC 3339 time, its fraction of a second dropped (Caddy gives nanoseconds).
  static func rfc3339(_ text: String) -> Date? {
    var text = Substring(text)
    if let dot = text.firstIndex(of: ".") {
      let zone = text[dot...].drop { $0.isNumber || $0 == "." }
      text = text[..<dot] + zone
    }
    return ISO8601DateFormatter().date(from: String(text))
  }
}
