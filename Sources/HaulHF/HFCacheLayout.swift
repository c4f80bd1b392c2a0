import Foundation
import HaulCore

/// The Hub cache's layout, as `huggingface_hub` writes it (`file_download.py`:
/// `repo_folder_name`, `_create_symlink`, `_cache_commit_hash_for_specific_revision`), so
/// that `huggingface_hub`, `transformers` and `diffusers` load the files with
/// `HF_HUB_OFFLINE=1`:
///
/// ```
/// models--ORG--NAME/blobs/OID                  the bytes, named by sha256 or git blob id
/// models--ORG--NAME/snapshots/COMMIT/PATH      a relative link to ../../blobs/OID
/// models--ORG--NAME/refs/REVISION              the commit, no newline (none for a commit)
/// ```
///
/// The files are downloaded into `blobs/`; the links and refs are written when the tree
/// page that names them is listed, so a link may point at a blob still on its way.
package enum HFCacheLayout {
  /// The repository's folder in the cache: `models--ORG--NAME`, `datasets--ORG--NAME`.
  package static func folderName(of address: HFAddress) -> String {
    address.kind.apiSegment + "--" + address.repository.replacingOccurrences(of: "/", with: "--")
  }

  /// Whether `item` can lie in the cache: its path has no empty, `.` or `..` segment and its
  /// blob's name is hex (a Hub that lists another would have haul write outside the
  /// repository's folder).
  package static func isSafe(_ item: HFTreeEntry) -> Bool {
    let oid = (item.lfs?.oid ?? item.oid).utf8
    guard oid.count == 40 || oid.count == 64, oid.allSatisfy({ Hex.value(of: $0) != nil }),
      !item.path.isEmpty
    else { return false }
    return !item.path.split(separator: "/", omittingEmptySubsequences: false).contains {
      $0.isEmpty || $0 == "." || $0 == ".."
    }
  }

  /// The blob of `item`, below the repository's folder: `blobs/SHA256` for a file in LFS,
  /// else `blobs/BLOBID`.
  package static func blob(of item: HFTreeEntry) -> String {
    "blobs/" + (item.lfs?.oid ?? item.oid).lowercased()
  }

  /// Where `item`'s link at `commit` lies below the repository's folder, and what it
  /// points at, relative to its own folder (`../../blobs/OID`, one `../` more per folder
  /// of its path).
  package static func link(of item: HFTreeEntry, at commit: String) -> (
    path: String, target: String
  ) {
    let depth = item.path.split(separator: "/", omittingEmptySubsequences: false).count
    let up = String(repeating: "../", count: depth + 1)
    return ("snapshots/\(commit)/\(item.path)", up + blob(of: item))
  }

  /// Makes `path` a link to `target` (folders created), replacing what is there unless it
  /// is that link already.
  package static func writeLink(_ path: String, to target: String) throws(TransferError) {
    let files = FileManager.default
    if (try? files.destinationOfSymbolicLink(atPath: path)) == target { return }
    do {
      try files.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      if (try? files.attributesOfItem(atPath: path)) != nil { try files.removeItem(atPath: path) }
      try files.createSymbolicLink(atPath: path, withDestinationPath: target)
    } catch {
      throw TransferError(.io, "cannot link the cache's snapshot file \(path)")
    }
  }

  /// Writes `commit` to `path` (`refs/REVISION`), without a newline, as the Hub cache keeps it.
  package static func writeRef(_ path: String, commit: String) throws(TransferError) {
    let files = FileManager.default
    if files.contents(atPath: path) == Data(commit.utf8) { return }
    do {
      try files.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      try Data(commit.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
      throw TransferError(.io, "cannot write the cache's ref \(path)")
    }
  }
}
