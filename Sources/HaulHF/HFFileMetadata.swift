import HaulCore

/// What the Hub's answer to a `HEAD` of a file's `resolve` URL says of the file, read as
/// `huggingface_hub`'s `get_hf_file_metadata` reads it (`file_download.py`): the commit the
/// revision names (`X-Repo-Commit`), the file's digest (`X-Linked-Etag`, else `ETag`) and
/// its size (`X-Linked-Size`, else the `Content-Length` of an answer that is no redirect).
///
/// A file in LFS (or Xet) redirects to the storage host and names its SHA-256 in
/// `X-Linked-Etag`; any other file is answered by the Hub itself, its `ETag` the git blob id.
package struct HFFileMetadata: Sendable, Hashable {
  /// The commit the revision names: 40 hex digits, lower case.
  package var commit: String
  /// The file's SHA-256 (in LFS) or git blob id, lower case, without quotes or `W/`.
  package var etag: String
  /// Its size in bytes.
  package var size: Int64
  /// Whether the file is in LFS (or Xet): the Hub linked to it (`X-Linked-Etag`) and
  /// `etag` is its SHA-256.
  package var isLinked: Bool

  package init(commit: String, etag: String, size: Int64, isLinked: Bool) {
    self.commit = commit
    self.etag = etag
    self.size = size
    self.isLinked = isLinked
  }

  /// The redirect statuses; their answer is read where it stops, off the Hub.
  package static let redirects: Set<Int> = [301, 302, 303, 307, 308]

  /// The metadata `head` gives, or why it gives none (a server that is no Hub, or a
  /// digest of neither form: the file could not be checked).
  package static func read(_ head: ResponseHead) -> Result<HFFileMetadata, TransferError> {
    guard let commit = head.value(for: "X-Repo-Commit")?.trimmingASCIIWhitespace().lowercased(),
      HFTreeLister.isCommit(commit)
    else { return .failure(refusal("names no commit (X-Repo-Commit)")) }
    let linked = head.value(for: "X-Linked-Etag").map(normalize)
    let etag = linked ?? head.value(for: "ETag").map(normalize)
    let isLinked = linked != nil
    guard let etag,
      etag.utf8.count == (isLinked ? 64 : 40) && etag.utf8.allSatisfy({ Hex.value(of: $0) != nil })
    else {
      return .failure(
        refusal(
          isLinked
            ? "names no SHA-256 of the file (X-Linked-Etag)"
            : "names no git blob id of the file (ETag)"))
    }
    let sizeText =
      head.value(for: "X-Linked-Size")
      ?? (redirects.contains(head.status) ? nil : head.value(for: "Content-Length"))
    guard let size = sizeText.flatMap({ Int64($0.trimmingASCIIWhitespace()) }), size >= 0 else {
      return .failure(refusal("names no size of the file (X-Linked-Size or Content-Length)"))
    }
    return .success(
      HFFileMetadata(commit: commit, etag: etag.lowercased(), size: size, isLinked: isLinked))
  }

  /// An entity tag without its weak mark and quotes (`W/"abc"` is `abc`), as
  /// `huggingface_hub`'s `_normalize_etag`.
  static func normalize(_ etag: String) -> String {
    var text = Substring(etag.trimmingASCIIWhitespace())
    if text.hasPrefix("W/") { text = text.dropFirst(2) }
    while text.hasPrefix("\"") { text = text.dropFirst() }
    while text.hasSuffix("\"") { text = text.dropLast() }
    return String(text)
  }

  private static func refusal(_ reason: String) -> TransferError {
    TransferError(.protocol, "the Hub's answer for the file " + reason)
  }

  /// The tree item the metadata stands for at `path`, as the tree API would list it: a
  /// file in LFS with its SHA-256 as `lfs.oid`, any other with its git blob id as `oid`.
  package func item(at path: String) -> HFTreeEntry {
    HFTreeEntry(
      type: "file", oid: etag, size: size, path: path,
      lfs: isLinked ? HFTreeEntry.LFS(oid: etag, size: size) : nil)
  }
}
