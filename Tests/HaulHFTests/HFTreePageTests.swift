import Foundation
import HaulCore
import Testing

@testable import HaulHF

/// Tree pages: their JSON, their `Link` field, and the downloads they make.
@Suite struct HFTreePageTests {
  static let page = """
    [{"type":"directory","oid":"1111111111111111111111111111111111111111","size":0,"path":"sub"},
     {"type":"file","oid":"ce013625030ba8dba906f756967f9e9ca394464a","size":6,"path":"sub/hello.txt"},
     {"type":"file","oid":"2222222222222222222222222222222222222222","size":134,"path":"model.bin",
      "lfs":{"oid":"ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef0123456789","size":1048576,
      "pointerSize":134},"xetHash":"ff"}]
    """

  @Test func a_tree_page_decodes_files_and_folders() throws {
    let items = try #require(HFTreeEntry.page(Array(Self.page.utf8)))
    #expect(items.map(\.path) == ["sub", "sub/hello.txt", "model.bin"])
    #expect(items.map(\.isFile) == [false, true, true])
    #expect(items[2].lfs == HFTreeEntry.LFS(oid: String(items[2].lfs!.oid), size: 1_048_576))
    #expect(HFTreeEntry.page(Array("{\"error\":\"x\"}".utf8)) == nil)
  }

  @Test func files_carry_their_size_and_lfs_sha256_or_git_blob_id() throws {
    let items = try #require(HFTreeEntry.page(Array(Self.page.utf8)))
    let hub = HFEndpoint("http://127.0.0.1:1")!
    let commit = String(repeating: "c", count: 40)
    let files = HFTreeLister(endpoint: hub).files(
      of: items, in: HFAddress(kind: .model, repository: "org/name"), at: commit)
    #expect(files.map(\.relativePath) == ["sub/hello.txt", "model.bin"])
    #expect(files.map(\.size) == [6, 1_048_576])
    #expect(
      files[0].url?.absoluteString == "http://127.0.0.1:1/org/name/resolve/\(commit)/sub/hello.txt")
    #expect(files[0].source == "hf://org/name@\(commit)/sub/hello.txt")
    #expect(files[0].digests.map(\.algorithm) == [.sha1])
    #expect(files[0].digestSeed == .gitBlob(size: 6))
    #expect(files[1].digests.map(\.algorithm) == [.sha256])
    #expect(
      files[1].digests.first?.hex
        == "abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789")
    #expect(files[1].digestSeed == nil)
  }

  @Test func the_next_page_is_the_link_whose_rel_is_next() {
    #expect(
      HFLinkHeader.target(
        "next", in: "<https://hub/api/models/o/n/tree/c?recursive=true&cursor=ab%3D>; rel=\"next\"")
        == "https://hub/api/models/o/n/tree/c?recursive=true&cursor=ab%3D")
    #expect(
      HFLinkHeader.target("next", in: "<https://a/1>; rel=\"prev\", <https://a/3>; rel=next")
        == "https://a/3")
    #expect(HFLinkHeader.target("next", in: "<https://a/1>; rel=\"prev\"") == nil)
    #expect(HFLinkHeader.target("next", in: "") == nil)
  }

  @Test func a_commit_is_forty_hex_digits() {
    #expect(HFTreeLister.isCommit(String(repeating: "a", count: 40)))
    #expect(!HFTreeLister.isCommit("main"))
    #expect(!HFTreeLister.isCommit(String(repeating: "g", count: 40)))
  }
}
