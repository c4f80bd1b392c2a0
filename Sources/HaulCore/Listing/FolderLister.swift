import Foundation

/// A way of listing a folder entry's tree: WebDAV collections and web index pages each
/// implement it, as an object store's prefixes do, and `ListingExpansion` drives
/// any of them, so the scheduler knows no listing format.
///
/// A lister is asked for one page at a time: the files of one folder (or of a flat listing
/// such as an object store's prefix) and the subfolders it names, which the expansion lists
/// later. It keeps no state between pages; what it needs for the next page of the same folder travels
/// in `ListingPage.next`. Requests go through `ListingClient`, which sends them as every
/// transfer is sent and retries transient failures.
package protocol FolderLister: Sendable {
  /// Whether this lister lists `entry`'s tree. The first lister that takes an entry lists
  /// it; an entry no lister takes runs as a single transfer. A lister may take a
  /// single-file entry too (an `hf://` file, whose size and digest the Hub tells): it lists
  /// that one file, which lands in the folder of the entry's path (`ListingItem`).
  func lists(_ entry: ManifestEntry) -> Bool

  /// The page of `folder` after `cursor` (the previous page's `next`; `nil` for the first).
  /// Throws what fails the folder: the expansion reports it as the folder's own transfer.
  func page(of folder: ListedFolder, after cursor: String?, through client: ListingClient)
    async throws(TransferError) -> ListingPage
}

/// A folder to list: where it is asked for, and where it lies in the tree.
package struct ListedFolder: Sendable, Hashable {
  /// What the lister asks for (an index page, a collection, a prefix's first page).
  package var url: URL
  /// Its path relative to the entry's folder: `""` for the entry's own, else `a/b/`.
  package var relativePath: String
  /// 1 for the entry's own folder, 2 for its subfolders, and so on (`--depth`).
  package var depth: Int

  package init(url: URL, relativePath: String, depth: Int) {
    self.url = url
    self.relativePath = relativePath
    self.depth = depth
  }

  /// The folder `name/` inside this one, at `url`.
  package func child(named name: String, at url: URL) -> ListedFolder {
    ListedFolder(url: url, relativePath: relativePath + name + "/", depth: depth + 1)
  }
}

/// A file a listing names.
package struct ListedFile: Sendable, Hashable {
  /// Where it is downloaded from; `nil` when its name makes no URL (the file is refused).
  /// For a file made with `init(urlText:)`, parsed from `source` on each read.
  package var url: URL? {
    get { givenURL ?? (sourceIsURL ? URL(string: source) : nil) }
    set {
      givenURL = newValue
      sourceIsURL = false
    }
  }
  /// The URL as the report's and `--failed`'s line gives it (`s3://bucket/key` for an object).
  package var source: String
  /// `url`'s text, read without parsing it when the file was made with `init(urlText:)`:
  /// what a skipped file's report line gives.
  package var urlText: String? { sourceIsURL ? source : givenURL?.absoluteString }
  private var givenURL: URL?
  /// Whether `source` is the URL's text, parsed only when the file is fetched: a file
  /// found complete in place never needs its URL.
  private var sourceIsURL = false
  /// Its path relative to the entry's folder (`a/b/c.txt`), as the server names it: the
  /// expansion refuses one that would leave the folder. For a single-file entry, relative
  /// to the folder its path lies in.
  package var relativePath: String
  /// Its path in the listing, which `--include`, `--exclude` and `--depth` judge, when it
  /// lands elsewhere (`blobs/OID` of a content-addressed cache); `nil`: `relativePath`.
  package var listedPath: String?
  /// Its exact size, when the listing gives one in bytes (never a rounded `56K`).
  package var size: Int64?
  /// Its modification time, as listed.
  package var modified: Date?
  /// A validator sent as `If-Match`, so that a file replaced after it was listed fails
  /// with `http_412` instead of mixing two versions; only where the lister knows it is the
  /// one a download's answer carries (an object store's ETag).
  package var ifMatch: String?
  /// Its entity tag as listed (a WebDAV `getetag`), compared only with what a listing gives
  /// of the same file: a partial begun under another one is not resumed.
  package var etag: String?
  /// The digests the listing gives of the file, each with its source (a Hub's `lfs.oid`):
  /// the download checks them before the file is put in place.
  package var digests: [ExpectedDigest] = []
  /// What one of `digests`' algorithms is fed before the file's bytes (a git blob id's
  /// header, `DigestSeed.gitBlob`).
  package var digestSeed: DigestSeed?

  package init(
    url: URL?, source: String, relativePath: String, size: Int64? = nil,
    modified: Date? = nil, ifMatch: String? = nil, etag: String? = nil
  ) {
    self.givenURL = url
    self.source = source
    self.relativePath = relativePath
    self.size = size
    self.modified = modified
    self.ifMatch = ifMatch
    self.etag = etag
  }

  /// A file whose URL is `urlText` (a valid URL's text), which is also its `source`.
  package init(
    urlText: String, relativePath: String, size: Int64? = nil, modified: Date? = nil,
    etag: String? = nil
  ) {
    self.init(
      url: nil, source: urlText, relativePath: relativePath, size: size, modified: modified,
      etag: etag)
    sourceIsURL = true
  }

  package static func == (left: ListedFile, right: ListedFile) -> Bool {
    left.urlText == right.urlText && left.source == right.source
      && left.relativePath == right.relativePath && left.size == right.size
      && left.modified == right.modified && left.ifMatch == right.ifMatch
      && left.etag == right.etag && left.digests == right.digests
      && left.digestSeed == right.digestSeed && left.listedPath == right.listedPath
  }

  package func hash(into hasher: inout Hasher) {
    hasher.combine(urlText)
    hasher.combine(source)
    hasher.combine(relativePath)
    hasher.combine(size)
    hasher.combine(modified)
    hasher.combine(ifMatch)
    hasher.combine(etag)
    hasher.combine(digests)
    hasher.combine(digestSeed)
    hasher.combine(listedPath)
  }
}

/// One page of a listing.
package struct ListingPage: Sendable, Hashable {
  /// The files it names.
  package var files: [ListedFile]
  /// The subfolders it names, to be listed later (each at most once, within `--depth`).
  package var folders: [ListedFolder]
  /// What asks for the same folder's next page (`ListObjectsV2`'s continuation token);
  /// `nil` on its last page.
  package var next: String?

  package init(files: [ListedFile] = [], folders: [ListedFolder] = [], next: String? = nil) {
    self.files = files
    self.folders = folders
    self.next = next
  }

  /// What the page says of its folder's children, whatever the folder's place in the tree:
  /// their names below `folder`, sizes and times. Two folders with the same fingerprint
  /// list the same children.
  func fingerprint(below folder: ListedFolder) -> Int {
    var hasher = Hasher()
    // Names are hashed as their UTF-8 bytes past the folder's own path: each path listed
    // in `folder` starts with it.
    let skip = folder.relativePath.utf8.count
    // By index: each file read in place, not copied out with all its strings.
    for index in files.indices {
      Self.combine(files[index].relativePath, after: skip, into: &hasher)
      hasher.combine(files[index].size)
      hasher.combine(files[index].modified)
    }
    hasher.combine(-1)
    for child in folders { Self.combine(child.relativePath, after: skip, into: &hasher) }
    return hasher.finalize()
  }

  /// Feeds `path`'s UTF-8 bytes past the first `skip` to `hasher`, their count first.
  private static func combine(_ path: String, after skip: Int, into hasher: inout Hasher) {
    var path = path
    path.withUTF8 { bytes in
      let name = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.dropFirst(skip)))
      hasher.combine(name.count)
      hasher.combine(bytes: name)
    }
  }
}
