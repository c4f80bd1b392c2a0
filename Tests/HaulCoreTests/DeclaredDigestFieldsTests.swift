import HaulTestSupport
import Testing

@testable import HaulCore

/// The fault server's digest fields, read back by `ServerDigests`: what the transfer tests
/// rely on when they ask the server to declare a digest.
@Suite struct DeclaredDigestFieldsTests {
  static let every = [
    "repr-sha-256", "repr-sha-512", "content-sha-256", "content-sha-512", "digest-sha-256",
    "digest-sha-512", "digest-md5", "goog-md5", "amz-sha256",
  ]

  private func head(_ status: Int, _ fields: [(String, String)]) -> ResponseHead {
    ResponseHead(status: status, headers: fields.map { HTTPField($0.0, $0.1) })
  }

  @Test func every_form_of_a_full_response_declares_the_contents_digests() throws {
    let fields = DeclaredDigestFields.fields(Self.every, seed: 3, size: 5000, part: 0..<5000)
    let declared = ServerDigests.declared(by: head(200, fields))
    let actual = DeclaredDigestFields.digests(seed: 3, range: 0..<5000)
    #expect(
      declared.map(\.source) == [
        "server:repr-digest:sha-256", "server:repr-digest:sha-512",
        "server:content-digest:sha-256", "server:content-digest:sha-512",
        "server:digest:sha-256", "server:digest:sha-512", "server:digest:md5",
        "server:x-goog-hash:md5", "server:x-amz-checksum-sha256",
      ])
    #expect(try ExpectedDigest.verify(declared, against: actual).get().count == 9)
  }

  @Test func a_partial_responses_content_digest_is_the_parts_and_is_not_read() {
    let fields = DeclaredDigestFields.fields(
      ["repr-sha-256", "content-sha-256"], seed: 3, size: 5000, part: 1000..<5000)
    let content = fields.first { $0.0 == "Content-Digest" }?.1
    let part = DeclaredDigestFields.digests(seed: 3, range: 1000..<5000)
    #expect(content == "sha-256=:\(DeclaredDigestFields.base64(part[.sha256]!)):")
    #expect(
      ServerDigests.declared(by: head(206, fields)).map(\.source) == [
        "server:repr-digest:sha-256"
      ])
  }

  @Test func wrong_digests_are_of_other_bytes() {
    let fields = DeclaredDigestFields.fields(
      ["repr-sha-512"], seed: 3, size: 5000, part: 0..<5000, wrong: true)
    let declared = ServerDigests.declared(by: head(200, fields))
    #expect(declared.count == 1)
    let actual = DeclaredDigestFields.digests(seed: 3, range: 0..<5000)
    #expect(throws: DigestMismatch.self) {
      try ExpectedDigest.verify(declared, against: actual).get()
    }
  }

  @Test func malformed_fields_declare_nothing() {
    let fields = DeclaredDigestFields.fields(["malformed"], seed: 3, size: 5000, part: 0..<5000)
    #expect(fields.count == 5)
    #expect(ServerDigests.declared(by: head(200, fields)).isEmpty)
  }
}
