import Foundation
import HaulCore

/// `hf://REPO[@REVISION][/PATH]` in a manifest (`HFAddress`): a file as its `resolve` URL
/// at the revision (`HFEndpoint.fileURL`), which `HFFileLister` asks the Hub about; a
/// folder as its tree URL at the revision (`HFEndpoint.treeURL`), which `HFTreeLister`
/// resolves to a commit and lists. A folder's files land by default in the repository's
/// NAME as a folder, a file in its own name.
package struct HFURLScheme: ManifestURLScheme {
  /// The Hub the URLs go to.
  package let endpoint: HFEndpoint
  /// Whether folders land in the Hub cache's layout (`--hf-cache`), each in its
  /// `models--ORG--NAME/` by default.
  package let cache: Bool

  package init(endpoint: HFEndpoint, cache: Bool = false) {
    self.endpoint = endpoint
    self.cache = cache
  }

  package var scheme: String { "hf" }

  package var folderName: String { "an hf:// folder" }

  package func url(for string: String, field: String) -> Result<URL, ManifestLineError> {
    let address: HFAddress
    switch HFAddress.parse(string) {
    case .success(let value): address = value
    case .failure(let problem): return .failure(ManifestLineError("\(field) \(problem.reason)"))
    }
    let url =
      address.isFolder
      ? endpoint.treeURL(of: address)
      : endpoint.fileURL(of: address)
    guard let url else { return .failure(ManifestLineError("\(field) makes no valid URL")) }
    return .success(url)
  }

  package func namesFolder(_ url: URL) -> Bool { endpoint.folder(of: url) != nil }

  /// The repository's NAME, as a folder; in the cache, its `models--ORG--NAME/`.
  package func defaultFolderPath(for url: URL) -> String {
    guard let address = endpoint.folder(of: url) else { return "" }
    return (cache ? HFCacheLayout.folderName(of: address) : address.name) + "/"
  }
}
