import Foundation
import HaulCore

/// What an `hf://REPO[@REVISION][/PATH]` URL names: a repository of some kind, a revision
/// (a branch, tag or commit) and a file or folder in it.
///
/// REPO is `ORG/NAME` (a model), `models/ORG/NAME`, `datasets/ORG/NAME` or
/// `spaces/ORG/NAME`; REVISION defaults to `main`, writes a `/` of a branch or tag as
/// `%2F`, and takes `refs/pr/N` and `refs/convert/NAME` as they are. A URL without PATH or
/// ending in `/` names a folder.
package struct HFAddress: Sendable, Hashable {
  package var kind: HFRepoKind
  /// `ORG/NAME`.
  package var repository: String
  /// The revision, decoded (`refs/pr/1`, `release/v1`).
  package var revision: String
  /// The file's or folder's path in the repository, without a leading or trailing `/`;
  /// empty for the repository's root.
  package var path: String
  /// Whether it names a folder.
  package var isFolder: Bool

  package init(
    kind: HFRepoKind, repository: String, revision: String = HFAddress.defaultRevision,
    path: String = "", isFolder: Bool = true
  ) {
    self.kind = kind
    self.repository = repository
    self.revision = revision
    self.path = path
    self.isFolder = isFolder
  }

  /// The revision of a URL that gives none.
  package static let defaultRevision = "main"

  /// The repository's NAME: the default folder of its files.
  package var name: String {
    String(repository[repository.index(after: repository.firstIndex(of: "/")!)...])
  }

  /// The URL that names this address, with `revision` in place of its own when given:
  /// `hf://datasets/ORG/NAME@REV/PATH`, the revision's `/` as `%2F` but for `refs/…`.
  package func text(revision other: String? = nil) -> String {
    let revision = other ?? self.revision
    var text = "hf://" + (kind == .model ? "" : kind.apiSegment + "/") + repository
    if revision != Self.defaultRevision || other != nil {
      text += "@" + (revision.hasPrefix("refs/") ? revision : Self.encodeSlashes(revision))
    }
    if !path.isEmpty { text += "/" + path }
    if isFolder { text += "/" }
    return text
  }

  /// Reads `string`, which starts with `hf://` in any case; the reason never quotes it.
  package static func parse(_ string: String) -> Result<HFAddress, HFAddressError> {
    guard string.count > 5 else { return .failure(HFAddressError("names no repository")) }
    var rest = Substring(string.dropFirst(5))
    if rest.contains("?") || rest.contains("#") {
      return .failure(HFAddressError("has a query or fragment, which hf:// URLs do not take"))
    }
    var segments = rest.split(separator: "/", omittingEmptySubsequences: false)
    var kind = HFRepoKind.model
    if let first = segments.first, let named = HFRepoKind(urlSegment: first) {
      kind = named
      segments.removeFirst()
    }
    guard segments.count >= 2 else {
      return .failure(HFAddressError("names no repository ORG/NAME"))
    }
    let organisation = segments[0]
    var name = segments[1]
    var revision = defaultRevision
    var consumed = 2
    if let at = name.firstIndex(of: "@") {
      var given = String(name[name.index(after: at)...])
      name = name[..<at]
      if given == "refs", segments.count >= 4,
        segments[2] == "pr" || segments[2] == "convert"
      {
        given += "/" + segments[2] + "/" + segments[3]
        consumed = 4
      }
      revision = String(decoding: PercentDecoding.bytes(Substring(given)), as: UTF8.self)
      guard !revision.isEmpty else { return .failure(HFAddressError("has an empty revision")) }
      // As git refuses such ref names; the Hub cache keeps the revision as a path.
      guard
        !revision.split(separator: "/", omittingEmptySubsequences: false).contains(where: {
          $0.isEmpty || $0 == "." || $0 == ".."
        })
      else {
        return .failure(HFAddressError("has an empty, . or .. segment in its revision"))
      }
    }
    for part in [organisation, name] {
      guard !part.isEmpty, part != ".", part != "..",
        part.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) })
      else {
        return .failure(
          HFAddressError("names no repository ORG/NAME of letters, digits, -, _ and ."))
      }
    }
    rest = segments.dropFirst(consumed).joined(separator: "/")[...]
    let isFolder = rest.isEmpty || rest.hasSuffix("/")
    while rest.hasSuffix("/") { rest.removeLast() }
    if !rest.isEmpty,
      rest.split(separator: "/", omittingEmptySubsequences: false).contains(where: {
        $0.isEmpty || $0 == "." || $0 == ".."
      })
    {
      return .failure(HFAddressError("has an empty, . or .. segment in its path"))
    }
    return .success(
      HFAddress(
        kind: kind, repository: organisation + "/" + name, revision: revision,
        path: String(rest), isFolder: isFolder))
  }

  /// `text` with each `/` written `%2F` (and `%` as `%25`, so that it reads back).
  private static func encodeSlashes(_ text: String) -> String {
    text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "/", with: "%2F")
  }
}

/// Why an `hf://` URL names nothing.
package struct HFAddressError: Error, Sendable, Hashable {
  /// What is wrong, told after the field's name (`URL names no repository`).
  package var reason: String

  package init(_ reason: String) {
    self.reason = reason
  }
}
