import Foundation

/// The lister of folder uploads (`{"op": "upload", "path": "site/", "url": ".../site/"}`):
/// lists the local folder below the output directory, one folder per page, and names each
/// file's URL as its `FolderUploadTarget` does. The target makes each remote folder before
/// the files that go into it are handed out, the top one included (a web server's
/// collection; an object store makes none).
///
/// Every regular file is sent, also through a symbolic link that resolves inside the
/// entry's folder; a link that leads out of it, a link to a folder (which could lead round
/// again) and anything that is neither file nor folder are left out.
package struct LocalFolderLister: FolderLister {
  /// Where the files go.
  package let target: any FolderUploadTarget

  package init(target: any FolderUploadTarget) {
    self.target = target
  }

  package func lists(_ entry: ManifestEntry) -> Bool {
    entry.operation == .upload && entry.recursive && target.receives(entry.url)
  }

  package func page(of folder: ListedFolder, after cursor: String?, through client: ListingClient)
    async throws(TransferError) -> ListingPage
  {
    let root = client.outputDirectory + "/" + client.entry.path
    let local = root + folder.relativePath
    let names: [String]
    do {
      names = try FileManager.default.contentsOfDirectory(atPath: local).sorted()
    } catch {
      throw TransferError(.io, "cannot read the folder \(ManifestText.quoted(local)): \(error)")
    }
    try await target.makeFolder(folder.url, through: client)
    let realRoot = Self.resolved(root) ?? root
    var page = ListingPage()
    for name in names {
      let path = local + name
      var info = stat()
      guard lstat(path, &info) == 0 else { continue }
      var kind = info.st_mode & S_IFMT
      if kind == S_IFLNK {
        guard let target = Self.resolved(path), target.hasPrefix(realRoot + "/"),
          stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG
        else { continue }
        kind = S_IFREG
      }
      let isFolder = kind == S_IFDIR
      guard isFolder || kind == S_IFREG else { continue }
      let url = target.url(of: name, isFolder: isFolder, in: folder.url)
      if isFolder {
        if let url { page.folders.append(folder.child(named: name, at: url)) }
        continue
      }
      page.files.append(
        ListedFile(
          url: url, source: url.map(target.source) ?? folder.url.absoluteString + name,
          relativePath: folder.relativePath + name))
    }
    return page
  }

  /// `path` with every symbolic link resolved, `nil` when it cannot be.
  private static func resolved(_ path: String) -> String? {
    guard let real = realpath(path, nil) else { return nil }
    defer { free(real) }
    return String(cString: real)
  }
}
