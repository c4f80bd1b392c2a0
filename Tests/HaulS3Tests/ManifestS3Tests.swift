import Foundation
import HaulTestSupport
import Testing

@testable import HaulCore
@testable import HaulS3

@Suite("Manifest s3:// URLs: accepted with --s3 and mapped to the endpoint")
struct ManifestS3Tests {
  let fixture = ManifestFixture()
  let endpoint = try! S3Endpoint.custom("http://127.0.0.1:9000").get()

  func s3Manifest(_ lines: [String]) -> Manifest {
    var manifest = fixture.manifest(lines: lines)
    manifest.schemes = ManifestURLSchemes([S3URLScheme(endpoint: endpoint)])
    return manifest
  }

  @Test func s3_urls_become_endpoint_urls_with_the_key_as_default_path() throws {
    fixture.createFile("up.bin")
    let manifest = s3Manifest([
      "s3://bucket/dir/a b+c.txt",
      #"{"url": "s3://bucket/k2", "mirrors": ["s3://other/k2"], "path": "k2"}"#,
      #"{"url": "s3://bucket/up.bin", "op": "upload", "path": "up.bin"}"#,
    ])
    #expect(ManifestFixture.validationError(manifest) == nil)
    let entries = Array(manifest.entries())
    try #require(entries.count == 3)
    #expect(entries[0].url.absoluteString == "http://127.0.0.1:9000/bucket/dir/a%20b%2Bc.txt")
    #expect(entries[0].path == "a b+c.txt")
    #expect(entries[0].text == "s3://bucket/dir/a b+c.txt", "--failed keeps the s3:// line")
    #expect(entries[1].mirrors.map(\.absoluteString) == ["http://127.0.0.1:9000/other/k2"])
    #expect(entries[2].url.absoluteString == "http://127.0.0.1:9000/bucket/up.bin")
  }

  @Test func a_prefix_becomes_its_first_listing_page_with_a_folder_path() throws {
    let manifest = s3Manifest([
      #"{"url": "s3://bucket/dir/sub/", "path": "into//here/"}"#,
      "s3://bucket/",
    ])
    #expect(ManifestFixture.validationError(manifest) == nil)
    let entries = Array(manifest.entries())
    try #require(entries.count == 2)
    #expect(
      entries[0].url.absoluteString
        == "http://127.0.0.1:9000/bucket?list-type=2&prefix=dir%2Fsub%2F")
    #expect(S3PrefixListing.isFirstPage(entries[0].url))
    #expect(S3PrefixListing.prefix(of: entries[0].url) == "dir/sub/")
    #expect(entries[0].path == "into/here/")
    #expect(entries[1].path == "", "a bare prefix lands in the output directory")
    #expect(!S3PrefixListing.isFirstPage(URL(string: "http://127.0.0.1:9000/bucket/k%3Fa")!))
  }

  @Test func a_folder_upload_to_a_prefix_goes_below_the_prefix_url() throws {
    fixture.createFile("site/a.txt")
    let manifest = s3Manifest([
      #"{"url": "s3://bucket/pub/a b/", "op": "upload", "path": "site/"}"#,
      #"{"url": "s3://bucket/", "op": "upload", "path": "site/", "recursive": true}"#,
    ])
    #expect(ManifestFixture.validationError(manifest) == nil)
    let entries = Array(manifest.entries())
    try #require(entries.count == 2)
    #expect(entries[0].url.absoluteString == "http://127.0.0.1:9000/bucket/pub/a%20b/")
    #expect(entries[0].recursive && entries[0].operation == .upload)
    #expect(entries[1].url.absoluteString == "http://127.0.0.1:9000/bucket/")
    let lister = LocalFolderLister(target: S3KeyTarget(endpoint: endpoint))
    #expect(entries.allSatisfy(lister.lists))
    var web = entries[0]
    web.url = URL(string: "http://127.0.0.1:9001/bucket/pub/")!
    #expect(!lister.lists(web), "another server's folder upload is not the store's")
  }

  @Test func a_folder_uploads_keys_are_encoded_as_s3_signs_them() throws {
    let target = S3KeyTarget(endpoint: endpoint)
    let folder = URL(string: "http://127.0.0.1:9000/bucket/pub/")!
    let file = try #require(target.url(of: "ü 100%#?+=.txt", isFolder: false, in: folder))
    #expect(
      file.absoluteString
        == "http://127.0.0.1:9000/bucket/pub/%C3%BC%20100%25%23%3F%2B%3D.txt")
    #expect(target.source(of: file) == "s3://bucket/pub/ü 100%#?+=.txt")
    let sub = try #require(target.url(of: "a b", isFolder: true, in: folder))
    #expect(sub.absoluteString == "http://127.0.0.1:9000/bucket/pub/a%20b/")
  }

  @Test func a_listed_page_becomes_downloads_under_the_folder_and_refuses_escaping_keys()
    throws
  {
    let manifest = s3Manifest([#"{"url": "s3://bucket/dir/", "path": "out/"}"#])
    let prefix = try #require(Array(manifest.entries()).first)
    let page = S3ListPage(
      bucket: "bucket",
      objects: [
        .init(key: "dir/a b/c+d.txt", size: 5, etag: "\"e1\""),
        .init(key: "dir/sub/", size: 0, etag: nil),
        .init(key: "dir/../up.txt", size: 1, etag: nil),
        .init(key: "dir/ctl\u{01}", size: 1, etag: nil),
      ], nextToken: nil)
    let folder = ListedFolder(url: prefix.url, relativePath: "", depth: 1)
    let items = S3PrefixListing(pageSize: 5).files(of: page, in: folder).compactMap {
      ListingItem($0, of: prefix, folders: FolderOptions())
    }
    try #require(items.count == 3, "the folder marker is skipped")
    guard case .entry(let entry) = items[0] else {
      Issue.record("\(items[0])")
      return
    }
    #expect(entry.url.absoluteString == "http://127.0.0.1:9000/bucket/dir/a%20b/c%2Bd.txt")
    #expect(entry.path == "out/a b/c+d.txt")
    #expect(entry.size == 5)
    #expect(entry.headers.contains { $0.hasName("If-Match") && $0.value == "\"e1\"" })
    #expect(entry.text.contains(#""url":"s3://bucket/dir/a b/c+d.txt""#))
    for item in items.dropFirst() {
      guard case .ended(_, let error) = item else {
        Issue.record("\(item) is not refused")
        continue
      }
      #expect(error.code == .pathRefused)
    }
    let next = S3PrefixListing(pageSize: 5).page(prefix.url, after: "t/+=")
    #expect(
      next.absoluteString.hasSuffix("&max-keys=5&encoding-type=url&continuation-token=t%2F%2B%3D"))
  }

  @Test func s3_urls_without_s3_name_the_option() {
    var manifest = fixture.manifest(lines: [#"{"url": "s3://bucket/k"}"#])
    manifest.schemes = ManifestURLSchemes([S3URLScheme(endpoint: nil)])
    let error = ManifestFixture.validationError(manifest)
    #expect(error?.description == #"m.jsonl:1: "url" is an s3:// URL, which needs --s3"#)
  }

  @Test func s3_urls_without_the_scheme_are_an_unsupported_scheme() {
    let error = ManifestFixture.validationError(
      fixture.manifest(lines: [#"{"url": "s3://bucket/k"}"#]))
    #expect(error?.description.contains(#"unsupported scheme "s3""#) == true)
  }

  @Test(arguments: [
    (#"{"url": "s3://bucket/dir/", "path": "d"}"#, #"prefix must end in "/""#),
    (#"{"url": "s3://bucket/dir/", "op": "upload", "path": "d"}"#, "only be downloaded"),
    (#"{"url": "s3://bucket/dir/", "mirrors": ["s3://o/dir/"]}"#, "prefix has no mirrors"),
    (#"{"url": "https://h/k", "mirrors": ["s3://o/dir/"]}"#, "mirror cannot be an s3:// prefix"),
    (#"{"url": "s3://bucket/k", "path": "d/"}"#, "must name a file"),
    (#"{"url": "s3://bucket/dir/", "path": "../d/"}"#, #"must not contain "..""#),
    (#"{"url": "s3:///k"}"#, "has no bucket"),
    (#"{"url": "https://h/k", "mirrors": ["s3://b/./k"]}"#, #""mirrors" item 1 has a key"#),
  ])
  func bad_s3_urls_are_manifest_errors(line: String, reason: String) {
    let error = ManifestFixture.validationError(s3Manifest([line]))
    #expect(error?.line == 1)
    #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
  }
}
