import Foundation
import HaulCore
import Testing

@testable import HaulHF

/// A single-file line's URL, and the Hub's answer to the `HEAD` of a file, read as
/// `huggingface_hub`'s `get_hf_file_metadata` reads it.
@Suite struct HFFileMetadataTests {
  let hub = HFEndpoint("http://127.0.0.1:8080/mirror/")!
  let commit = String(repeating: "ab", count: 20)
  let sha256 = String(repeating: "c0", count: 32)
  let blob = String(repeating: "d1", count: 20)

  @Test(
    arguments: [
      HFAddress(kind: .model, repository: "org/name", revision: "main", path: "config.json"),
      HFAddress(kind: .dataset, repository: "org/data", revision: "refs/pr/1", path: "a b/c+d.csv"),
      HFAddress(kind: .space, repository: "org/app", revision: "release/v1", path: "x/y/z.bin"),
      HFAddress(kind: .model, repository: "org/name", revision: "v1", path: "datasets/f"),
    ].map { address in
      var file = address
      file.isFolder = false
      return file
    })
  func a_file_url_reads_back_as_its_file(address: HFAddress) throws {
    let url = try #require(hub.fileURL(of: address))
    #expect(url.query == HFEndpoint.fileQuery)
    #expect(hub.file(of: url) == address)
    #expect(hub.folder(of: url) == nil)
    #expect(hub.isResolveURL(url))
  }

  @Test func only_a_marked_resolve_url_of_this_hub_names_a_file() throws {
    let address = HFAddress(
      kind: .model, repository: "org/name", path: "config.json", isFolder: false)
    let plain = try #require(hub.resolveURL(of: address, path: "config.json", at: "main"))
    #expect(hub.file(of: plain) == nil)
    let elsewhere = URL(string: "http://elsewhere/mirror/org/name/resolve/main/f?download=true")!
    #expect(hub.file(of: elsewhere) == nil)
    let short = URL(string: "http://127.0.0.1:8080/mirror/org/name/resolve/main?download=true")!
    #expect(hub.file(of: short) == nil)
    let tree = try #require(hub.treeURL(of: HFAddress(kind: .model, repository: "org/name")))
    #expect(hub.file(of: tree) == nil)
  }

  @Test func an_lfs_files_redirect_names_it_by_the_linked_fields_not_its_own() throws {
    let head = ResponseHead(
      status: 302,
      headers: [
        HTTPField("Location", "https://cdn.example/blob?sig=1"),
        HTTPField("X-Repo-Commit", commit), HTTPField("ETag", "\"\(blob)\""),
        HTTPField("X-Linked-Etag", "\"\(sha256.uppercased())\""),
        HTTPField("X-Linked-Size", "300000"), HTTPField("Content-Length", "1127"),
      ])
    let metadata = try HFFileMetadata.read(head).get()
    #expect(metadata == HFFileMetadata(commit: commit, etag: sha256, size: 300_000, isLinked: true))
    let item = metadata.item(at: "w/model.bin")
    #expect(item.lfs == HFTreeEntry.LFS(oid: sha256, size: 300_000))
    #expect(HFCacheLayout.blob(of: item) == "blobs/" + sha256)
  }

  @Test func a_small_file_is_named_by_its_etag_and_content_length() throws {
    let head = ResponseHead(
      status: 200,
      headers: [
        HTTPField("X-Repo-Commit", commit), HTTPField("ETag", "W/\"\(blob)\""),
        HTTPField("Content-Length", "41"),
      ])
    let metadata = try HFFileMetadata.read(head).get()
    #expect(metadata == HFFileMetadata(commit: commit, etag: blob, size: 41, isLinked: false))
    let item = metadata.item(at: "config.json")
    #expect(item.lfs == nil && item.oid == blob && item.size == 41)
  }

  @Test func an_answer_without_a_commit_a_digest_or_a_size_names_no_file() {
    let fields = [
      HTTPField("X-Repo-Commit", commit), HTTPField("ETag", "\"\(blob)\""),
      HTTPField("Content-Length", "41"),
    ]
    for dropped in fields.indices {
      var without = fields
      without.remove(at: dropped)
      let result = HFFileMetadata.read(ResponseHead(status: 200, headers: without))
      #expect(throws: TransferError.self) { try result.get() }
    }
    // A redirect's own length is its body's, not the file's; a digest of neither form.
    let redirect = ResponseHead(
      status: 302,
      headers: [
        HTTPField("X-Repo-Commit", commit), HTTPField("X-Linked-Etag", "\"\(sha256)\""),
        HTTPField("Content-Length", "1127"),
      ])
    #expect(throws: TransferError.self) { try HFFileMetadata.read(redirect).get() }
    let strange = ResponseHead(
      status: 200,
      headers: [
        HTTPField("X-Repo-Commit", commit), HTTPField("ETag", "\"not-a-blob-id\""),
        HTTPField("Content-Length", "41"),
      ])
    #expect(throws: TransferError.self) { try HFFileMetadata.read(strange).get() }
  }
}
