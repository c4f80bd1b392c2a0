import Foundation
import Testing

@testable import HaulHF

/// The Hub's URLs, as `huggingface_hub` builds them.
@Suite struct HFEndpointTests {
  let hub = HFEndpoint("http://127.0.0.1:8080/mirror/")!

  @Test func the_revision_and_tree_urls_encode_the_revision_as_one_segment() throws {
    let address = HFAddress(kind: .dataset, repository: "org/data", revision: "refs/pr/1")
    #expect(
      hub.revisionURL(of: address)?.absoluteString
        == "http://127.0.0.1:8080/mirror/api/datasets/org/data/revision/refs%2Fpr%2F1")
    var folder = address
    folder.path = "sub dir/x"
    #expect(
      hub.treeURL(of: folder, at: "c0ffee")?.absoluteString
        == "http://127.0.0.1:8080/mirror/api/datasets/org/data/tree/c0ffee/sub%20dir%2Fx?recursive=true"
    )
  }

  @Test func a_tree_url_reads_back_as_its_folder() throws {
    var address = HFAddress(kind: .space, repository: "org/app", revision: "release/v1")
    address.path = "a/b"
    let url = try #require(hub.treeURL(of: address))
    #expect(hub.folder(of: url) == address)
    #expect(hub.folder(of: URL(string: "http://127.0.0.1:8080/mirror/org/app")!) == nil)
    #expect(
      hub.folder(
        of: URL(string: "http://elsewhere/mirror/api/models/o/n/tree/main?recursive=true")!) == nil)
  }

  @Test func a_file_resolves_below_its_kinds_prefix() {
    let model = HFAddress(kind: .model, repository: "org/name")
    #expect(
      hub.resolveURL(of: model, path: "a b/c+d.bin", at: "main")?.absoluteString
        == "http://127.0.0.1:8080/mirror/org/name/resolve/main/a%20b/c%2Bd.bin")
    let data = HFAddress(kind: .dataset, repository: "org/data")
    #expect(
      hub.resolveURL(of: data, path: "x", at: "refs/pr/2")?.absoluteString
        == "http://127.0.0.1:8080/mirror/datasets/org/data/resolve/refs%2Fpr%2F2/x")
  }

  @Test func urls_of_the_hub_name_their_repository() {
    #expect(
      hub.repository(of: URL(string: "http://127.0.0.1:8080/mirror/org/name/resolve/c/x")!)
        == "hf://org/name")
    #expect(
      hub.repository(of: URL(string: "http://127.0.0.1:8080/mirror/api/datasets/o/d/tree/c")!)
        == "hf://datasets/o/d")
    #expect(hub.repository(of: URL(string: "http://127.0.0.1:9/o/n/resolve/c/x")!) == nil)
  }

  @Test func an_endpoint_must_be_an_http_url() {
    #expect(HFEndpoint("ftp://hub") == nil)
    #expect(HFEndpoint("not a url") == nil)
    #expect(HFEndpoint("https://huggingface.co")?.base == "https://huggingface.co")
  }
}
