import Foundation

/// The lister of folder uploads (`{"op": "upload", "path": "site/", "url": ".../site/"}`):
/// lists the local folder below the output directory, one folder per page, and names each
/// file's URL as its `FolderUploadTarget` does. The target makes each remote folder before
/// the files that go into it are handed out, the top one included (a web server's
/// collection; an object store makes none).
///
/// Every regular file is sent, also through a symbolic link that resolves inside the
/// entry's folder; a link that leads out of it, a link to a folder (which could lead round
/// again) and anything that is neither file nor folder are left out. The folders are read
/// through the output directory's descriptor (`LocalTree`): a symlink planted in place of a
/// folder being listed fails that folder with `path_refused`, and links are resolved by
/// haul itself, never followed by the kernel.
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
    let tree = client.runner.directory.tree
    let shown = client.entry.path + folder.relativePath
    let top: [String]
    let names: [(String, FileStatus)]
    do throws(LocalTree.Failure) {
      top = try tree.resolve(client.entry.path, followsLinks: true)
      let below = folder.relativePath.split(separator: "/").map(String.init)
      names = try tree.entries(of: top + below).sorted { $0.0 < $1.0 }
    } catch {
      throw error.transferError("cannot read the folder \(ManifestText.quoted(shown))")
    }
    try await target.makeFolder(folder.url, through: client)
    var page = ListingPage()
    for (name, status) in names {
      var isFile = status.isRegularFile
      if status.isSymlink {
        let link = client.entry.path + "/" + folder.relativePath + name
        guard let resolved = try? tree.resolve(link, followsLinks: true),
          resolved.count > top.count, Array(resolved.prefix(top.count)) == top,
          (try? tree.status(of: link, followsLinks: true))?.isRegularFile == true
        else { continue }
        isFile = true
      }
      let isFolder = !status.isSymlink && status.isFolder
      guard isFolder || isFile else { continue }
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
}
