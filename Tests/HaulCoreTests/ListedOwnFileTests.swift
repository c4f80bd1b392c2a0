import Foundation
import Testing

@testable import HaulCore

/// A lister that takes a single-file entry (an `hf://` file) lists the file the line names:
/// it lands beside the entry's path, no folder rule judges it, and the line stays its own.
@Suite struct ListedOwnFileTests {
  @Test func a_single_files_listing_lands_beside_its_path_unfiltered_with_the_lines_digests()
    throws
  {
    let sha1 = String(repeating: "ab", count: 20)
    let line = #"{"url": "hf://o/n/a.json", "path": "sub/cfg.json", "sha1": "\#(sha1)"}"#
    let own = ManifestEntry(
      line: 4, text: line, url: URL(string: "http://127.0.0.1/o/n/resolve/main/a.json")!,
      path: "sub/cfg.json", manifestDigests: [.sha1: sha1])
    let options = FolderOptions(depth: 1, filter: PathFilter(include: [try PathGlob("*.bin")]))
    var file = ListedFile(
      url: URL(string: "http://127.0.0.1/o/n/resolve/c0ffee/a.json"), source: "hf://o/n@c/a.json",
      relativePath: "cache/blobs/x", size: 12)
    file.listedPath = "deep/er/a.json"
    file.digests = [ExpectedDigest(algorithm: .sha256, hex: "00", source: "hf:lfs-sha256")]
    guard case .entry(let entry) = ListingItem(file, of: own, folders: options) else {
      Issue.record("the line's own file is neither filtered nor too deep")
      return
    }
    #expect(entry.path == "sub/cache/blobs/x")
    #expect(entry.text == line)
    #expect(entry.size == 12)
    #expect(entry.manifestDigests == own.manifestDigests)
    #expect(
      entry.expectedDigestList.map(\.source) == [
        "hf:lfs-sha256", DigestAlgorithm.sha1.manifestSource,
      ])
  }

  @Test func folder_paths_keep_their_own_folder() {
    #expect(ListingItem.folder(of: "") == "")
    #expect(ListingItem.folder(of: "a/b/") == "a/b/")
    #expect(ListingItem.folder(of: "a/b/c.txt") == "a/b/")
    #expect(ListingItem.folder(of: "c.txt") == "")
  }
}
