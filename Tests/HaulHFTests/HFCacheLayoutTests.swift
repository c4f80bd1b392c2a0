import Testing

@testable import HaulHF

/// The Hub cache's names and links.
@Suite struct HFCacheLayoutTests {
  @Test func a_repository_folder_is_its_kind_and_id_joined_by_double_dashes() {
    #expect(
      HFCacheLayout.folderName(of: HFAddress(kind: .model, repository: "org/name"))
        == "models--org--name")
    #expect(
      HFCacheLayout.folderName(of: HFAddress(kind: .dataset, repository: "o/d"))
        == "datasets--o--d")
  }

  @Test func a_snapshot_link_climbs_one_folder_per_segment_to_its_blob() {
    let lfs = HFTreeEntry(
      type: "file", oid: "1", size: 3, path: "a/b/c.bin", lfs: .init(oid: "ABC", size: 3))
    #expect(HFCacheLayout.blob(of: lfs) == "blobs/abc")
    let link = HFCacheLayout.link(of: lfs, at: "c0")
    #expect(link.path == "snapshots/c0/a/b/c.bin")
    #expect(link.target == "../../../../blobs/abc")
    let top = HFTreeEntry(type: "file", oid: "def", size: 1, path: "x")
    #expect(HFCacheLayout.link(of: top, at: "c0").target == "../../blobs/def")
  }

  @Test func the_cache_is_hf_hub_cache_else_hf_home_hub() {
    #expect(HFSetup.cacheDirectory(in: ["HF_HUB_CACHE": "/c", "HF_HOME": "/h"]) == "/c")
    #expect(HFSetup.cacheDirectory(in: ["HF_HOME": "/h"]) == "/h/hub")
    #expect(HFSetup.cacheDirectory(in: ["XDG_CACHE_HOME": "/x"]) == "/x/huggingface/hub")
  }

  @Test func a_listed_name_that_would_leave_the_repository_is_unsafe() {
    let blob = String(repeating: "a", count: 40)
    #expect(HFCacheLayout.isSafe(HFTreeEntry(type: "file", oid: blob, size: 1, path: "a/b")))
    #expect(!HFCacheLayout.isSafe(HFTreeEntry(type: "file", oid: blob, size: 1, path: "../b")))
    #expect(!HFCacheLayout.isSafe(HFTreeEntry(type: "file", oid: blob, size: 1, path: "/b")))
    #expect(!HFCacheLayout.isSafe(HFTreeEntry(type: "file", oid: "../x", size: 1, path: "b")))
    #expect(
      !HFCacheLayout.isSafe(
        HFTreeEntry(type: "file", oid: blob, size: 1, path: "b", lfs: .init(oid: "zz", size: 1))))
  }
}
