import Foundation

/// One item of the Hub's tree API answer (`GET /api/models/REPO/tree/REV?recursive=true`):
/// a file or a folder, as `huggingface_hub`'s `RepoFile` and `RepoFolder` read it.
package struct HFTreeEntry: Sendable, Hashable, Decodable {
  /// `file` or `directory`.
  package var type: String
  /// A file's git blob id (SHA-1 of `blob SIZE\0` and its bytes, for a file not in LFS).
  package var oid: String
  /// Its size in bytes.
  package var size: Int64
  /// Its path from the repository's root.
  package var path: String
  /// The LFS pointer's content, for a file stored in LFS: `oid` is its SHA-256.
  package var lfs: LFS?

  /// A file's LFS object.
  package struct LFS: Sendable, Hashable, Decodable {
    package var oid: String
    package var size: Int64

    package init(oid: String, size: Int64) {
      self.oid = oid
      self.size = size
    }
  }

  package init(type: String, oid: String, size: Int64, path: String, lfs: LFS? = nil) {
    self.type = type
    self.oid = oid
    self.size = size
    self.path = path
    self.lfs = lfs
  }

  /// Whether it is a file (not a folder).
  package var isFile: Bool { type == "file" }

  /// A tree page's items, or `nil` when `body` is not a JSON array of them.
  package static func page(_ body: [UInt8]) -> [HFTreeEntry]? {
    try? JSONDecoder().decode([HFTreeEntry].self, from: Data(body))
  }
}
