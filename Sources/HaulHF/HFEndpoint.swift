import Foundation
import HaulCore

/// Where the Hub is (`HF_ENDPOINT`, path included, else `https://huggingface.co`) and the
/// URLs of its API and files, as `huggingface_hub` builds them (`hf_api.py`,
/// `file_download.py`'s `hf_hub_url`).
package struct HFEndpoint: Sendable, Hashable {
  /// The address without a trailing `/`: `https://huggingface.co`, `http://127.0.0.1:8080/hub`.
  package let base: String
  /// The Hub's origin: where its token goes, and nowhere else.
  package let origin: Origin

  /// The public Hub's address.
  package static let defaultBase = "https://huggingface.co"

  /// The endpoint at `base` (an http or https URL); `nil` when it is none.
  package init?(_ base: String) {
    var text = base
    while text.hasSuffix("/") { text.removeLast() }
    guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
      scheme == "http" || scheme == "https", url.host != nil, url.query == nil
    else { return nil }
    self.base = text
    self.origin = Origin(url)
  }

  /// The revision API's URL, which answers the revision's commit (`sha`).
  package func revisionURL(of address: HFAddress) -> URL? {
    URL(
      string: api(address) + "/revision/" + Self.encodeSegment(address.revision))
  }

  /// The tree API's URL of `address`'s folder at `commit` (or its revision), listed
  /// recursively; `huggingface_hub` encodes the folder's path as one segment.
  package func treeURL(of address: HFAddress, at commit: String? = nil) -> URL? {
    var text = api(address) + "/tree/" + Self.encodeSegment(commit ?? address.revision)
    if !address.path.isEmpty { text += "/" + Self.encodeSegment(address.path) }
    return URL(string: text + "?" + Self.treeQuery)
  }

  /// The query of a folder's tree URL, which marks a manifest entry as an `hf://` folder.
  package static let treeQuery = "recursive=true"

  /// The `resolve` URL of the file `path` of `address`'s repository at `revision`.
  package func resolveURL(of address: HFAddress, path: String, at revision: String) -> URL? {
    URL(
      string: base + "/" + address.kind.urlPrefix + address.repository + "/resolve/"
        + Self.encodeSegment(revision) + "/" + Self.encodePath(path))
  }

  /// The query of a single-file line's `resolve` URL (`fileURL`), which marks its entry as
  /// an `hf://` file that `HFFileLister` asks the Hub about: the Hub's own download link
  /// has it, and the Hub takes it as it takes the URL without it.
  package static let fileQuery = "download=true"

  /// The `resolve` URL of `address`'s file at its revision, marked with `fileQuery`.
  package func fileURL(of address: HFAddress) -> URL? {
    resolveURL(of: address, path: address.path, at: address.revision).flatMap {
      URL(string: $0.absoluteString + "?" + Self.fileQuery)
    }
  }

  /// The file a single-file line's URL (`fileURL`) names, its revision decoded; `nil` for
  /// any other URL.
  package func file(of url: URL) -> HFAddress? {
    guard url.query(percentEncoded: true) == Self.fileQuery else { return nil }
    let text = url.absoluteString
    guard text.hasPrefix(base + "/"), let mark = text.firstIndex(of: "?") else { return nil }
    var segments = text[text.index(text.startIndex, offsetBy: base.count + 1)..<mark].split(
      separator: "/", maxSplits: 5, omittingEmptySubsequences: false)
    var kind = HFRepoKind.model
    if let first = segments.first, let named = HFRepoKind(urlSegment: first), named != .model {
      kind = named
      segments.removeFirst()
    }
    guard segments.count >= 5, segments[2] == "resolve", !segments[0].isEmpty,
      !segments[1].isEmpty, !segments[3].isEmpty, !segments[4].isEmpty
    else { return nil }
    let path = segments[4...].joined(separator: "/")
    return HFAddress(
      kind: kind, repository: segments[0] + "/" + segments[1], revision: Self.decode(segments[3]),
      path: Self.decode(path[...]), isFolder: false)
  }

  /// The address a folder's tree URL (`treeURL`) names, its revision as the URL gives it;
  /// `nil` for any other URL.
  package func folder(of url: URL) -> HFAddress? {
    guard url.query(percentEncoded: true) == Self.treeQuery else { return nil }
    let text = url.absoluteString
    let apiBase = base + "/api/"
    guard text.hasPrefix(apiBase), let mark = text.firstIndex(of: "?") else { return nil }
    let segments = text[text.index(text.startIndex, offsetBy: apiBase.count)..<mark].split(
      separator: "/", omittingEmptySubsequences: false)
    guard segments.count == 5 || segments.count == 6, segments[3] == "tree",
      let kind = HFRepoKind.allCases.first(where: { $0.apiSegment == segments[0] })
    else { return nil }
    return HFAddress(
      kind: kind, repository: segments[1] + "/" + segments[2], revision: Self.decode(segments[4]),
      path: segments.count == 6 ? Self.decode(segments[5]) : "", isFolder: true)
  }

  /// The repository a URL of this Hub names (its API's or its files'), as `hf://` writes
  /// it; `nil` for a URL elsewhere.
  package func repository(of url: URL) -> String? {
    let text = url.absoluteString
    guard text.hasPrefix(base + "/") else { return nil }
    var segments = text.dropFirst(base.count + 1).split(separator: "/").prefix(4)
    if segments.first == "api" { segments.removeFirst() }
    guard let first = segments.first else { return nil }
    let kind = HFRepoKind(urlSegment: first)
    if kind != nil { segments.removeFirst() }
    guard segments.count >= 2 else { return nil }
    let prefix = kind.map { $0 == .model ? "" : $0.apiSegment + "/" } ?? ""
    return "hf://" + prefix + segments[segments.startIndex] + "/"
      + segments[segments.startIndex + 1]
  }

  private func api(_ address: HFAddress) -> String {
    base + "/api/" + address.kind.apiSegment + "/" + address.repository
  }

  /// The characters a URL path segment keeps as they are (RFC 3986 unreserved).
  private static let unreserved = CharacterSet(
    charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

  /// `text` as one path segment: every byte but the unreserved ones escaped (Python's
  /// `quote(text, safe="")`).
  package static func encodeSegment(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
  }

  /// `path` with each segment encoded and its `/` kept (Python's `quote(path)`).
  package static func encodePath(_ path: String) -> String {
    path.split(separator: "/", omittingEmptySubsequences: false).map {
      encodeSegment(String($0))
    }.joined(separator: "/")
  }

  private static func decode(_ text: Substring) -> String {
    String(decoding: PercentDecoding.bytes(text), as: UTF8.self)
  }
}
