import Foundation
import HaulTestSupport
import Testing

@testable import HaulCore

@Suite("Manifest resumable: tus or ietf, uploads only, without method")
struct ManifestResumableTests {
  let fixture = ManifestFixture()

  @Test func an_upload_names_its_resumable_protocol() throws {
    fixture.createFile("a.bin")
    let manifest = fixture.manifest(lines: [
      #"{"url": "http://127.0.0.1/files/", "op": "upload", "path": "a.bin", "resumable": "tus"}"#,
      #"{"url": "http://127.0.0.1/up", "op": "upload", "path": "a.bin", "resumable": "ietf"}"#,
      #"{"url": "http://127.0.0.1/put", "op": "upload", "path": "a.bin"}"#,
    ])
    #expect(ManifestFixture.validationError(manifest) == nil)
    let entries = Array(manifest.entries())
    try #require(entries.count == 3)
    #expect(entries.map(\.resumable) == [.tus, .ietf, nil])
  }

  @Test(arguments: [
    (
      #"{"url": "http://h/f/", "op": "upload", "path": "a.bin", "resumable": "tus", "method": "POST"}"#,
      "\"method\" cannot be given with \"resumable\": the protocol fixes the methods"
    ),
    (#"{"url": "http://h/a.bin", "resumable": "tus"}"#, "\"resumable\" is only for uploads"),
    (
      #"{"url": "http://h/f/", "op": "upload", "path": "a.bin", "resumable": "s3"}"#,
      "\"resumable\" must be \"tus\" or \"ietf\""
    ),
    (
      #"{"url": "http://h/f/", "op": "upload", "path": "a.bin", "resumable": true}"#,
      "\"resumable\" must be a string, not a boolean"
    ),
    (
      #"{"url": "http://h/d/", "op": "upload", "path": "d/", "resumable": "tus"}"#,
      "a folder upload is not resumable: each file goes with PUT"
    ),
  ])
  func a_bad_resumable_line_is_named_by_its_number(line: String, reason: String) throws {
    fixture.createFile("a.bin")
    fixture.createFile("d/b.bin")
    let manifest = fixture.manifest(lines: ["# first", line])
    let error = try #require(ManifestFixture.validationError(manifest))
    #expect(error.line == 2)
    #expect(error.reason == reason)
  }

  @Test func a_transport_without_interim_responses_refuses_ietf_lines() throws {
    fixture.createFile("a.bin")
    var manifest = fixture.manifest(lines: [
      #"{"url": "http://h/f/", "op": "upload", "path": "a.bin", "resumable": "tus"}"#,
      #"{"url": "http://h/u", "op": "upload", "path": "a.bin", "resumable": "ietf"}"#,
    ])
    manifest.refusesResumableIETF = true
    let error = try #require(ManifestFixture.validationError(manifest))
    #expect(error.line == 2)
    #expect(error.reason.contains("needs the curl transport"))
  }
}
