import Foundation
import HaulCore

/// The lister of `hf://` folders: the revision resolved to one commit, then the Hub's tree
/// at that commit, page by page.
///
/// The entry's URL is the tree URL at the revision as written (`HFURLScheme`). The first
/// page asks the revision API for the commit (`sha`), unless the revision is one already
/// (40 hex digits), then the tree at that commit with `recursive=true`; each page's `Link:
/// <…>; rel="next"` is the next page's URL, followed as given. The commit travels with it
/// in the cursor (`COMMIT URL`), so every file of every page comes from that commit even
/// if the branch moves during the run. The tree is flat: folders are not listed again.
///
/// Each file is a download of its `resolve` URL at the commit, which redirects to the
/// storage host; its expected size is the listed one, and its digest the `lfs.oid`
/// (SHA-256) of a file in LFS, else its git blob id (SHA-1 seeded with `blob SIZE\0`,
/// `DigestSeed.gitBlob`). The file's path is its path in the repository, below the
/// entry's folder; with `cache`, its blob's (`HFCacheLayout`), the links of the files the
/// run takes and the revision's ref written as each page is listed.
package struct HFTreeLister: FolderLister {
  /// The Hub.
  package let endpoint: HFEndpoint
  /// Whether files land in the Hub cache's layout (`--hf-cache`).
  package let cache: Bool

  package init(endpoint: HFEndpoint, cache: Bool = false) {
    self.endpoint = endpoint
    self.cache = cache
  }

  /// How the report and `--failed` name a listed file's digests.
  package static let lfsSource = "hf:lfs-sha256"
  package static let blobSource = "hf:git-blob-id"

  package func lists(_ entry: ManifestEntry) -> Bool {
    entry.operation == .download && endpoint.folder(of: entry.url) != nil
  }

  package func page(of folder: ListedFolder, after cursor: String?, through client: ListingClient)
    async throws(TransferError) -> ListingPage
  {
    guard let address = endpoint.folder(of: folder.url) else {
      throw TransferError(.protocol, "the folder's URL is no hf:// tree")
    }
    let commit: String
    let pageURL: URL
    if let cursor, let space = cursor.firstIndex(of: " ") {
      commit = String(cursor[..<space])
      guard let next = URL(string: String(cursor[cursor.index(after: space)...])) else {
        throw TransferError(.protocol, "the Hub's next tree page is no URL")
      }
      pageURL = next
    } else {
      commit = try await resolve(address, through: client)
      if cache, commit != address.revision {
        try HFCacheLayout.writeRef(
          root(of: client) + "refs/" + address.revision, commit: commit)
      }
      guard let url = endpoint.treeURL(of: address, at: commit) else {
        throw TransferError(.protocol, "the repository's tree makes no URL")
      }
      pageURL = url
    }
    let answer = try await client.fetch(pageURL)
    guard let items = HFTreeEntry.page(answer.body) else {
      throw TransferError(.protocol, "the Hub's tree answer is not a list of files")
    }
    let next = answer.head.value(for: "Link").flatMap { HFLinkHeader.target("next", in: $0) }
      .flatMap { URL(string: $0, relativeTo: pageURL)?.absoluteURL }
    var files = files(of: items, in: address, at: commit)
    if cache {
      files = try cached(files, of: items, at: commit, in: root(of: client), taking: client.folders)
    }
    return ListingPage(files: files, next: next.map { commit + " " + $0.absoluteString })
  }

  /// The repository's folder in the cache, ending in `/`: the entry's `path` below the
  /// output directory.
  private func root(of client: ListingClient) -> String {
    client.outputDirectory + "/" + client.entry.path
  }

  /// `files` (made of `items`) landing in their blobs, each one `folders` takes linked
  /// from its snapshot path at `commit`.
  private func cached(
    _ files: [ListedFile], of items: [HFTreeEntry], at commit: String, in root: String,
    taking folders: FolderOptions
  ) throws(TransferError) -> [ListedFile] {
    var landing: [ListedFile] = []
    landing.reserveCapacity(files.count)
    for (file, item) in zip(files, items.lazy.filter(\.isFile)) {
      var file = file
      guard HFCacheLayout.isSafe(item) else {
        // Refused by the expansion (`path_refused`): nothing is written for it.
        file.url = nil
        landing.append(file)
        continue
      }
      file.listedPath = item.path
      file.relativePath = HFCacheLayout.blob(of: item)
      if folders.takes(item.path) {
        let link = HFCacheLayout.link(of: item, at: commit)
        try HFCacheLayout.writeLink(root + link.path, to: link.target)
      }
      landing.append(file)
    }
    return landing
  }

  /// The commit `address`'s revision names: itself when it is one, else the revision API's
  /// `sha`.
  func resolve(_ address: HFAddress, through client: ListingClient) async throws(TransferError)
    -> String
  {
    if Self.isCommit(address.revision) { return address.revision }
    guard let url = endpoint.revisionURL(of: address) else {
      throw TransferError(.protocol, "the repository's revision makes no URL")
    }
    let answer = try await client.fetch(url)
    struct Revision: Decodable { var sha: String }
    guard let revision = try? JSONDecoder().decode(Revision.self, from: Data(answer.body)),
      Self.isCommit(revision.sha)
    else {
      throw TransferError(.protocol, "the Hub's revision answer names no commit")
    }
    return revision.sha
  }

  /// The downloads `items` (one tree page) make: its files, with their sizes and digests.
  package func files(of items: [HFTreeEntry], in address: HFAddress, at commit: String)
    -> [ListedFile]
  {
    var files: [ListedFile] = []
    files.reserveCapacity(items.count)
    for item in items where item.isFile {
      var file = ListedFile(
        url: endpoint.resolveURL(of: address, path: item.path, at: commit),
        source: HFAddress(
          kind: address.kind, repository: address.repository, revision: commit,
          path: item.path, isFolder: false
        ).text(revision: commit),
        relativePath: item.path, size: item.lfs?.size ?? item.size,
        etag: item.lfs?.oid ?? item.oid)
      if let lfs = item.lfs, lfs.oid.count == 64 {
        file.digests = [
          ExpectedDigest(algorithm: .sha256, hex: lfs.oid.lowercased(), source: Self.lfsSource)
        ]
      } else if item.lfs == nil, item.oid.count == 40 {
        file.digests = [
          ExpectedDigest(algorithm: .sha1, hex: item.oid.lowercased(), source: Self.blobSource)
        ]
        file.digestSeed = .gitBlob(size: item.size)
      }
      files.append(file)
    }
    return files
  }

  /// Whether `revision` is a full commit id (40 hex digits).
  package static func isCommit(_ revision: String) -> Bool {
    revision.utf8.count == 40 && revision.utf8.allSatisfy { Hex.value(of: $0) != nil }
  }
}
