import HaulCore

extension SchedulerOptions {
  /// Adds the web's folders to the run: a recursive download entry (`"recursive": true`) is
  /// listed through WebDAV, or the folder's index page where the server speaks no WebDAV,
  /// and a folder upload goes file by file into the server's collections, each made with
  /// `MKCOL`. Add it after any other protocol's listers: a web server takes a folder
  /// upload to any URL.
  public mutating func addWebFolders() {
    folderListers += [LocalFolderLister(target: WebCollections()), WebFolderLister()]
  }
}
