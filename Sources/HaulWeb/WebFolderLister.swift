import Foundation
import HaulCore
import Synchronization

/// The lister of recursive web folders (`"recursive": true`, `--recursive`): WebDAV where
/// the server speaks it, the folder's index page otherwise.
///
/// Each folder is first asked with `PROPFIND` (`Depth: 1`): a `207` is read as WebDAV
/// (`DAVMultistatus`). A server that does not take the method (`405`, `501`; `400` and
/// `403` from some) is asked with `GET` instead, and from then on each of its folders only
/// with `GET`: one refused `PROPFIND` per origin and run, the cost of detecting rather than
/// configuring. The `GET` asks for JSON first (`Accept`), which Caddy honours; the answer
/// is read by `IndexPage`. A page that does not mark its folders (h2o's) has each name it
/// leaves unmarked asked for its first byte (`resolving`). Files and folders are the
/// folder's children by name; a name that cannot be one (`..`, one holding `/`) is handed
/// on as a file without a URL, which the expansion refuses as `path_refused`. A listed
/// ETag is not sent as `If-Match`: the one a listing gives need not be the one a `GET`
/// answers with (Apache's is weak), and a mismatch would fail every file. It guards
/// resumes instead: it is compared only with the one the listing gave when the file's
/// partial began (`ResumeState.belongs(to:)`).
package final class WebFolderLister: FolderLister {
  /// Origins that refused `PROPFIND` in this run.
  private let refusesDAV = Mutex<Set<String>>([])

  /// The statuses that say a server takes no `PROPFIND`.
  static let noDAV: Set<Int> = [400, 403, 405, 406, 501]

  /// What a `GET` of a folder asks for: a JSON listing where one is offered, else the page.
  static let accept = "application/json;q=0.9, text/html, */*;q=0.5"

  package init() {}

  package func lists(_ entry: ManifestEntry) -> Bool {
    entry.recursive && entry.operation == .download
  }

  package func page(of folder: ListedFolder, after cursor: String?, through client: ListingClient)
    async throws(TransferError) -> ListingPage
  {
    let origin = Self.origin(of: folder.url)
    if !refusesDAV.withLock({ $0.contains(origin) }) {
      let answer = try await client.fetch(
        folder.url, method: "PROPFIND", headers: [HTTPField("Depth", "1")],
        handles: Self.noDAV)
      if answer.head.status == 207 {
        guard let children = DAVMultistatus.parse(answer.body, folder: folder.url) else {
          throw TransferError(.protocol, "the folder's PROPFIND answer is no multistatus")
        }
        return Self.page(children.map(\.listed), in: folder)
      }
      if (200..<300).contains(answer.head.status),
        let names = IndexPage.parse(
          answer.body, contentType: answer.head.value(for: "Content-Type"), folder: folder.url)
      {
        // A server that answers any method with the page.
        return Self.page(await Self.resolving(names, in: folder.url, through: client), in: folder)
      }
      refusesDAV.withLock { _ = $0.insert(origin) }
    }
    let answer = try await client.fetch(folder.url, headers: [HTTPField("Accept", Self.accept)])
    guard
      let names = IndexPage.parse(
        answer.body, contentType: answer.head.value(for: "Content-Type"), folder: folder.url)
    else {
      throw TransferError(.protocol, "the folder's answer is neither an index page nor a listing")
    }
    return Self.page(await Self.resolving(names, in: folder.url, through: client), in: folder)
  }

  /// How many names that may be folders are asked about at once.
  static let probesInFlight = 8

  /// The statuses a probe reads: the redirects, and `416` (an empty file's answer).
  static let probeAnswers: Set<Int> = [301, 302, 303, 307, 308, 416]

  /// The largest answer a probe takes: a server that ignores `Range` and sends a larger
  /// file whole fails the probe.
  static let probeLimit = 64 << 10

  /// `names`, each that `mayBeFolder` asked for its first byte (`GET` with `Range:
  /// bytes=0-0`, up to `probesInFlight` at once; not `HEAD`, which corelibs' URLSession
  /// waits on for the body its `Content-Length` announces): a redirect to its URL plus `/`
  /// makes it a folder (`RedirectWalk.folder(after:of:)`); a file's `206` gives its exact
  /// size (`Content-Range`) and mtime, as a listing that gives them would. A probe that
  /// fails leaves the name a file, whose download then tells what is wrong.
  static func resolving(_ names: [ListedName], in folder: URL, through client: ListingClient)
    async -> [ListedName]
  {
    let asked = names.indices.filter { names[$0].mayBeFolder }
    guard !asked.isEmpty else { return names }
    var resolved = names
    await withTaskGroup(of: (Int, ListedName).self) { group in
      for (position, index) in asked.enumerated() {
        if position >= probesInFlight, let (done, name) = await group.next() {
          resolved[done] = name
        }
        let name = names[index]
        group.addTask { (index, await probe(name, in: folder, through: client)) }
      }
      for await (done, name) in group { resolved[done] = name }
    }
    return resolved
  }

  /// `child` as the answer to a request for its first byte says it is (see `resolving`).
  private static func probe(_ child: ListedName, in folder: URL, through client: ListingClient)
    async -> ListedName
  {
    var name = child
    name.mayBeFolder = false
    guard !name.name.isDotSegment, !name.name.utf8Contains(UInt8(ascii: "/")),
      let url = ListedName.url(of: name.name, isFolder: false, in: folder),
      let answer = try? await client.fetch(
        url, headers: [HTTPField("Range", "bytes=0-0")], handles: probeAnswers,
        stopsAtFolderRedirect: true, limit: probeLimit)
    else { return name }
    let head = answer.head
    if RedirectWalk.folder(after: head, of: url) != nil {
      name.isFolder = true
    } else if (200..<300).contains(head.status) {
      if head.value(for: "Content-Encoding") == nil {
        name.size =
          head.status == 206
          ? ContentRange(head.value(for: "Content-Range"))?.total : Int64(answer.body.count)
      }
      name.modified = head.value(for: "Last-Modified").flatMap(HTTPDate.parse)
    }
    return name
  }

  /// The page of `folder` that `children` make.
  static func page(_ children: [ListedName], in folder: ListedFolder) -> ListingPage {
    var page = ListingPage()
    page.files.reserveCapacity(children.count { !$0.isFolder })
    let folderText = folder.url.absoluteString
    let base = folderText.utf8.last == UInt8(ascii: "/") ? folderText : folderText + "/"
    for index in children.indices {
      let child = children[index]
      let relative = folder.relativePath.joined(with: child.name)
      let leaves =
        child.name.isDotSegment || child.name.utf8Contains(UInt8(ascii: "/"))
      if !leaves, child.isFolder,
        let url = ListedName.url(of: child.name, isFolder: true, in: folder.url)
      {
        page.folders.append(folder.child(named: child.name, at: url))
        continue
      }
      if leaves || child.isFolder {
        page.files.append(
          ListedFile(
            url: nil, source: folderText.joined(with: child.name),
            relativePath: relative + (child.isFolder ? "/" : ""), size: child.size,
            modified: child.modified, etag: child.etag))
        continue
      }
      // A file's URL is parsed only if it is fetched (`ListedFile.init(urlText:)`).
      page.files.append(
        ListedFile(
          urlText: ListedName.urlText(of: child.name, isFolder: false, below: base),
          relativePath: relative, size: child.size, modified: child.modified,
          etag: child.etag))
    }
    return page
  }

  private static func origin(of url: URL) -> String {
    "\(url.scheme ?? "")://\(url.host(percentEncoded: true) ?? ""):\(url.port ?? -1)"
  }
}
