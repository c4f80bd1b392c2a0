import Foundation
import HaulCore

/// A WebDAV `207 Multi-Status` answer to `PROPFIND` with `Depth: 1`, read into the
/// children of the collection asked for: each `response`'s `href`, `getcontentlength`
/// (exact, so it becomes the file's size), `getlastmodified`, `getetag` and whether its
/// `resourcetype` holds `collection`. Elements are matched by local name, whatever prefix
/// the server binds `DAV:` to (`D:`, `d:`, `lp1:`, none); the collection's own `response`
/// and anything that is no child of it (`ListedName.child`) are left out.
///
/// Read with a small scanner over those few elements, as object store pages are:
/// an XML parser would bring libxml2 for that.
package enum DAVMultistatus {
  /// One listed child, with its ETag as the server gave it.
  package struct Child: Sendable, Hashable {
    package var name: ListedName
    package var etag: String?

    /// The child as a listed name, its ETag with it.
    var listed: ListedName {
      var listed = name
      listed.etag = etag
      return listed
    }
  }

  /// The children `body` lists for `folder`; `nil` when it is no `multistatus` document.
  package static func parse(_ body: [UInt8], folder: URL) -> [Child]? {
    let tags = Tags(body)
    guard tags.contains(where: { $0.local == "multistatus" && !$0.closing }) else { return nil }
    var children: [Child] = []
    var seen = Set<String>()
    var response: Response?
    var textStart: Int?
    for tag in tags {
      if !tag.closing && !tag.empty {
        if tag.local == "response" { response = Response() }
        textStart = tag.end
        if tag.local == "collection" { response?.isCollection = true }
        continue
      }
      if tag.local == "collection" { response?.isCollection = true }
      guard tag.closing, var current = response else { continue }
      let text =
        textStart.map {
          ListedName.decodeEntities(
            Substring(String(decoding: body[$0..<tag.start], as: UTF8.self)))
        }
      switch tag.local {
      case "href": current.href = text
      case "getcontentlength": current.size = text.flatMap { Int64($0.trimmed) }
      case "getlastmodified": current.modified = text.flatMap { HTTPDate.parse($0.trimmed) }
      case "getetag": current.etag = text.map(\.trimmed)
      case "response":
        response = nil
        guard let href = current.href, let (name, slash) = ListedName.child(href, of: folder)
        else { continue }
        let isFolder = slash || current.isCollection
        guard seen.insert(name + (isFolder ? "/" : "")).inserted else { continue }
        let size = isFolder ? nil : current.size.flatMap { $0 >= 0 ? $0 : nil }
        children.append(
          Child(
            name: ListedName(
              name: name, isFolder: isFolder, size: size, modified: current.modified),
            etag: current.etag.flatMap { $0.isEmpty ? nil : $0 }))
        continue
      default: break
      }
      response = current
      textStart = nil
    }
    return children
  }

  private struct Response {
    var href: String?
    var size: Int64?
    var modified: Date?
    var etag: String?
    var isCollection = false
  }

  /// A tag of the document: where it starts (`<`) and ends (after `>`), its local name.
  struct Tag {
    var start: Int
    var end: Int
    var local: Substring
    var closing: Bool
    var empty: Bool
  }

  /// The element tags of a document, in order; comments, processing instructions and
  /// declarations are skipped, CDATA is not expected in a multistatus.
  struct Tags: Sequence {
    let body: [UInt8]
    init(_ body: [UInt8]) { self.body = body }

    func makeIterator() -> AnyIterator<Tag> {
      var index = 0
      let body = self.body
      return AnyIterator {
        while index < body.count {
          guard body[index] == UInt8(ascii: "<") else {
            index += 1
            continue
          }
          let start = index
          guard let close = body[start...].firstIndex(of: UInt8(ascii: ">")) else {
            index = body.count
            return nil
          }
          index = close + 1
          var nameStart = start + 1
          let closing = nameStart < close && body[nameStart] == UInt8(ascii: "/")
          if closing { nameStart += 1 }
          guard nameStart < close, body[nameStart] != UInt8(ascii: "?"),
            body[nameStart] != UInt8(ascii: "!")
          else { continue }
          var nameEnd = nameStart
          while nameEnd < close,
            ![0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "/")].contains(body[nameEnd])
          {
            nameEnd += 1
          }
          var name = Substring(String(decoding: body[nameStart..<nameEnd], as: UTF8.self))
          if let colon = name.lastIndex(of: ":") { name = name[name.index(after: colon)...] }
          let empty = !closing && body[close - 1] == UInt8(ascii: "/")
          return Tag(
            start: start, end: close + 1, local: Substring(name.lowercased()), closing: closing,
            empty: empty)
        }
        return nil
      }
    }
  }
}

extension String {
  fileprivate var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
