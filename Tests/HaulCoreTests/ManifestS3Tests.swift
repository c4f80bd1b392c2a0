import Foundation
import Testing

@testable import HaulCore

@Suite("Manifest s3:// URLs: accepted with --s3 and mapped to the endpoint")
struct ManifestS3Tests {
  let fixture = ManifestFixture()
  let endpoint = try! S3Endpoint.custom("http://127.0.0.1:9000").get()

  func s3Manifest(_ lines: [String]) -> Manifest {
    var manifest = fixture.manifest(lines: lines)
    manifest.s3 = endpoint
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

  @Test func s3_urls_without_s3_name_the_option() {
    let error = ManifestFixture.validationError(
      fixture.manifest(lines: [#"{"url": "s3://bucket/k"}"#]))
    #expect(error?.description == #"m.jsonl:1: "url" is an s3:// URL, which needs --s3"#)
  }

  @Test(arguments: [
    (#"{"url": "s3://bucket/dir/", "path": "d/"}"#, "is an s3:// prefix"),
    (#"{"url": "s3:///k"}"#, "has no bucket"),
    (#"{"url": "https://h/k", "mirrors": ["s3://b/./k"]}"#, #""mirrors" item 1 has a key"#),
  ])
  func bad_s3_urls_are_manifest_errors(line: String, reason: String) {
    let error = ManifestFixture.validationError(s3Manifest([line]))
    #expect(error?.line == 1)
    #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
  }
}
