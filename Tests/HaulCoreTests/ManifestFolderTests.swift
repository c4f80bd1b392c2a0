import Foundation
import HaulTestSupport
import Testing

@testable import HaulCore

@Suite("Manifest folder entries: \"recursive\" and --recursive")
struct ManifestFolderTests {
  let fixture = ManifestFixture()

  func entries(_ lines: [String], recursive: Bool = false) throws -> [ManifestEntry] {
    var manifest = fixture.manifest(lines: lines)
    manifest.recursive = recursive
    if let error = ManifestFixture.validationError(manifest) { throw error }
    return Array(manifest.entries())
  }

  @Test func a_recursive_entry_lands_in_its_last_segment_as_a_folder() throws {
    let found = try entries([
      #"{"url": "http://127.0.0.1/pub/tree/", "recursive": true}"#,
      #"{"url": "http://127.0.0.1/pub/t%20x/", "recursive": true, "path": "out/here/"}"#,
      #"{"url": "http://127.0.0.1/pub/file", "recursive": false}"#,
    ])
    #expect(found.map(\.path) == ["tree/", "out/here/", "file"])
    #expect(found.map(\.recursive) == [true, true, false])
  }

  @Test func under_recursive_a_url_ending_in_a_slash_is_a_folder() throws {
    let found = try entries(
      [
        "http://127.0.0.1/pub/tree/",
        "http://127.0.0.1/pub/file.iso",
        #"{"url": "http://127.0.0.1/pub/other/"}"#,
        #"{"url": "http://127.0.0.1/pub/x/", "recursive": false, "path": "x.html"}"#,
      ], recursive: true)
    #expect(found.map(\.path) == ["tree/", "file.iso", "other/", "x.html"])
    #expect(found.map(\.recursive) == [true, false, true, false])
  }

  @Test func without_recursive_a_url_ending_in_a_slash_still_needs_a_file_name() {
    let error = ManifestFixture.validationError(
      fixture.manifest(lines: ["http://127.0.0.1/pub/tree/"]))
    #expect(error?.reason.contains("no file name") == true, "\(String(describing: error))")
  }

  @Test(arguments: [
    (#"{"url": "http://h/d/", "recursive": true, "path": "d"}"#, #"must end in "/""#),
    (#"{"url": "http://h/d", "recursive": true}"#, #"must end in "/", without a query"#),
    (#"{"url": "http://h/d/?x=1", "recursive": true}"#, "without a query"),
    (#"{"url": "http://h/", "recursive": true}"#, "no folder name"),
    (#"{"url": "http://h/d/", "recursive": true, "size": 3}"#, "no \"size\""),
    (#"{"url": "http://h/d/", "recursive": true, "mirrors": ["http://m/d/"]}"#, "no mirrors"),
    (#"{"url": "http://h/d/", "recursive": true, "op": "upload", "path": "d/"}"#, "does not exist"),
    (#"{"url": "http://h/d/", "op": "upload", "path": "d/", "method": "POST"}"#, "not POST"),
    (#"{"url": "http://h/d", "op": "upload", "path": "d/"}"#, "must end in \"/\""),
    (#"{"url": "http://h/d/", "recursive": true, "op": "upload"}"#, "needs \"path\""),
    (#"{"url": "http://h/d/", "recursive": "yes"}"#, "must be true or false, not a string"),
    (#"{"url": "http://h/d/", "recursive": true, "path": "../d/"}"#, #"must not contain "..""#),
  ])
  func bad_folder_entries_are_manifest_errors(line: String, reason: String) {
    let error = ManifestFixture.validationError(fixture.manifest(lines: [line]))
    #expect(error?.line == 1)
    #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
  }
}
