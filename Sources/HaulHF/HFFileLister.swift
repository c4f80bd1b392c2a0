import Foundation
import HaulCore

/// The lister of `hf://` single-file lines (`hf://ORG/NAME[@REVISION]/PATH`): the Hub is
/// asked about the file as `huggingface_hub`'s `hf_hub_download` asks it, and the file is
/// then the one download of its line, at the commit the Hub named, checked against the
/// Hub's digest and size.
///
/// The entry's URL is the file's `resolve` URL at the revision as written, marked with
/// `HFEndpoint.fileQuery` (`HFURLScheme`). One `HEAD` of it, which follows a redirect within
/// the Hub's origin (a renamed repository) and stops at one to any other host, tells the
/// commit, the digest and the size (`HFFileMetadata`): one request where the tree API
/// would take two (the revision API for the commit, then the file's folder, page by page;
/// the `paths-info` API is a `POST` with a form body), and the answer every Hub mirror
/// serves since `huggingface_hub` needs it. The storage host never sees the `HEAD`, nor the
/// token.
///
/// The file lands at the line's path; with `cache`, in its repository's folder of the Hub
/// cache, beside that path (`HFCacheLayout`: its blob, its snapshot link at the commit, the
/// revision's ref), as `hf_hub_download` writes it. A rerun asks the Hub again and skips a
/// file in place at the Hub's size. A line's own `size` that differs from the Hub's fails
/// it with `size_mismatch`; the line's digests are checked beside the Hub's.
package struct HFFileLister: FolderLister {
  /// The Hub.
  package let endpoint: HFEndpoint
  /// Whether the file lands in the Hub cache's layout (`--hf-cache`).
  package let cache: Bool

  package init(endpoint: HFEndpoint, cache: Bool = false) {
    self.endpoint = endpoint
    self.cache = cache
  }

  /// The redirects within the Hub a `HEAD` follows, as `huggingface_hub` (`_MAX_REDIRECTS`).
  static let hubRedirects = 10

  package func lists(_ entry: ManifestEntry) -> Bool {
    entry.operation == .download && entry.mirrors.isEmpty && endpoint.file(of: entry.url) != nil
  }

  package func page(of folder: ListedFolder, after cursor: String?, through client: ListingClient)
    async throws(TransferError) -> ListingPage
  {
    guard let address = endpoint.file(of: folder.url) else {
      throw TransferError(.protocol, "the line's URL is no hf:// file")
    }
    let metadata = try await metadata(of: address, through: client)
    if let size = client.entry.size, size != metadata.size {
      throw TransferError(
        .sizeMismatch, "the line gives \(size) bytes, the Hub \(metadata.size) for the file")
    }
    let item = metadata.item(at: address.path)
    let lister = HFTreeLister(endpoint: endpoint)
    guard var file = lister.files(of: [item], in: address, at: metadata.commit).first else {
      throw TransferError(.protocol, "the Hub's answer makes no file")
    }
    let entryPath = client.entry.path
    let folderPath = entryPath.lastIndex(of: "/").map { String(entryPath[...$0]) } ?? ""
    guard cache else {
      file.relativePath = String(entryPath.dropFirst(folderPath.count))
      return ListingPage(files: [file])
    }
    guard HFCacheLayout.isSafe(item) else {
      throw TransferError(.pathRefused, "the file's path or digest cannot lie in the Hub cache")
    }
    let repository = HFCacheLayout.folderName(of: address) + "/"
    let root = client.outputDirectory + "/" + folderPath + repository
    if metadata.commit != address.revision {
      try HFCacheLayout.writeRef(root + "refs/" + address.revision, commit: metadata.commit)
    }
    let link = HFCacheLayout.link(of: item, at: metadata.commit)
    try HFCacheLayout.writeLink(root + link.path, to: link.target)
    file.listedPath = item.path
    file.relativePath = repository + HFCacheLayout.blob(of: item)
    return ListingPage(files: [file])
  }

  /// The Hub's metadata of `address`'s file at its revision: a `HEAD` of its `resolve`
  /// URL, following redirects within the Hub's origin only.
  func metadata(of address: HFAddress, through client: ListingClient) async throws(TransferError)
    -> HFFileMetadata
  {
    guard var url = endpoint.resolveURL(of: address, path: address.path, at: address.revision)
    else { throw TransferError(.protocol, "the file makes no resolve URL") }
    for _ in 0..<Self.hubRedirects {
      let answer = try await client.fetch(
        url, method: "HEAD", handles: HFFileMetadata.redirects, stopsAtRedirect: true)
      if HFFileMetadata.redirects.contains(answer.head.status),
        let location = answer.head.value(for: "Location")?.trimmingASCIIWhitespace(),
        let target = URL(string: location, relativeTo: url)?.absoluteURL,
        Origin(target) == endpoint.origin
      {
        url = target
        continue
      }
      return try HFFileMetadata.read(answer.head).get()
    }
    throw TransferError(
      .redirectRefused, "the Hub redirected the file more than \(Self.hubRedirects) times")
  }
}
