import Testing

@testable import HaulCore

/// The digests of "abc", as the base64 that headers carry and the hex haul compares.
private enum ABC {
  static let sha256 = "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0="
  static let sha512 =
    "3a81oZNherrMQXNJriBBMRLm+k6JqX6iCp7u5ktV05ohkpkqJ0/BqDa6PCOj/uu9RU1EI2Q86A4qmslPpUyknw=="
  static let sha1 = "qZk+NkcGgWq6PiVxeFDCbJzQ2J0="
  static let md5 = "kAFQmDzST7DWlj99KOF/cg=="
  static let hex = DigestTests.abc
}

@Suite struct ServerDigestsTests {
  private func declared(_ status: Int = 200, _ fields: (String, String)...) -> [ExpectedDigest] {
    ServerDigests.declared(
      by: ResponseHead(status: status, headers: fields.map { HTTPField($0.0, $0.1) }))
  }

  private func expected(_ algorithm: DigestAlgorithm, _ source: String) -> ExpectedDigest {
    ExpectedDigest(algorithm: algorithm, hex: ABC.hex[algorithm]!, source: source)
  }

  // MARK: - Repr-Digest and Content-Digest (RFC 9530)

  @Test func repr_digest_gives_sha256_and_sha512() {
    #expect(
      declared(200, ("Repr-Digest", "sha-256=:\(ABC.sha256):, sha-512=:\(ABC.sha512):"))
        == [
          expected(.sha256, "server:repr-digest:sha-256"),
          expected(.sha512, "server:repr-digest:sha-512"),
        ])
  }

  @Test func repr_digest_counts_on_a_partial_response() {
    #expect(
      declared(206, ("repr-digest", "sha-256=:\(ABC.sha256):"))
        == [expected(.sha256, "server:repr-digest:sha-256")])
  }

  @Test func repr_digest_ignores_algorithms_haul_does_not_check() {
    // md5 and sha are deprecated in RFC 9530's registry; unixsum is not a digest.
    #expect(
      declared(200, ("Repr-Digest", "md5=:\(ABC.md5):, sha=:\(ABC.sha1):, unixsum=:AAAA:")) == [])
  }

  @Test func repr_digest_accepts_parameters_other_members_and_missing_padding() {
    let unpadded = String(ABC.sha256.dropLast())
    #expect(
      declared(
        200,
        (
          "Repr-Digest",
          #"  x=(1 2.5 "a\"b" tok ?0);p=*q, sha-256=:\#(unpadded):;note=@1700000000 ,y"#
        ))
        == [expected(.sha256, "server:repr-digest:sha-256")])
  }

  @Test func repr_digest_reads_every_field_of_the_name_and_keeps_the_last_value_of_a_key() {
    let zeros = ":" + String(repeating: "A", count: 43) + "=:"
    #expect(
      declared(
        200, ("Repr-Digest", "sha-256=\(zeros)"), ("Repr-Digest", "sha-256=:\(ABC.sha256):"))
        == [expected(.sha256, "server:repr-digest:sha-256")])
    // A later member that is not a byte sequence takes the key's place.
    #expect(declared(200, ("Repr-Digest", "sha-256=:\(ABC.sha256):, sha-256=?1")) == [])
  }

  @Test(arguments: [
    "sha-256=:\(ABC.sha256)",  // unterminated byte sequence
    "sha-256=:\(ABC.sha256):,",  // trailing comma
    "SHA-256=:\(ABC.sha256):",  // keys are lower case
    "sha-256=:!!!!:",  // not base64
    "sha-256=:\(ABC.sha256):, sha-512=:\(ABC.sha512):;",  // a parameter without a key
    "sha-256=:\(ABC.sha256):, x=(1 2",  // an unterminated inner list
    "sha-256=:\(ABC.sha256):, x=1.2345",  // a decimal with four fraction digits
    "sha-256=:\(ABC.sha256):, x=\"\u{7}\"",  // a control character in a string
    "sha-256=\(ABC.sha256)",  // a token cannot hold '=' padding
  ])
  func malformed_structured_field_is_ignored_whole(_ value: String) {
    #expect(declared(200, ("Repr-Digest", value)) == [])
  }

  @Test(arguments: [
    "sha-256=:\(ABC.sha1):",  // a 20-byte value is no SHA-256
    "sha-256=ungWv48Bz",  // a token, not a byte sequence
    #"sha-256="\#(ABC.sha256)""#,  // a string, not a byte sequence
    "sha-256=1",  // an integer
    "sha-256",  // the boolean true
    "",  // empty
  ])
  func repr_digest_value_that_is_no_digest_is_ignored(_ value: String) {
    #expect(declared(200, ("Repr-Digest", value)) == [])
  }

  @Test func malformed_repr_digest_does_not_hide_other_fields() {
    #expect(
      declared(200, ("Repr-Digest", "sha-256=:broken"), ("Digest", "MD5=\(ABC.md5)"))
        == [expected(.md5, "server:digest:md5")])
  }

  @Test func content_digest_counts_on_a_full_response_without_content_coding() {
    #expect(
      declared(200, ("Content-Digest", "sha-512=:\(ABC.sha512):"))
        == [expected(.sha512, "server:content-digest:sha-512")])
    #expect(
      declared(200, ("Content-Digest", "sha-256=:\(ABC.sha256):"), ("Content-Encoding", "identity"))
        == [expected(.sha256, "server:content-digest:sha-256")])
  }

  @Test func content_digest_of_a_part_is_never_the_files_digest() {
    #expect(declared(206, ("Content-Digest", "sha-256=:\(ABC.sha256):")) == [])
  }

  @Test func content_digest_of_coded_content_is_not_used() {
    #expect(
      declared(200, ("Content-Digest", "sha-256=:\(ABC.sha256):"), ("Content-Encoding", "gzip"))
        == [])
    #expect(
      declared(
        200, ("Content-Digest", "sha-256=:\(ABC.sha256):"), ("content-encoding", "identity, br"))
        == [])
  }

  // MARK: - Digest (RFC 3230)

  @Test func digest_field_gives_each_algorithm_in_any_case() {
    #expect(
      declared(
        200,
        ("Digest", "SHA-256=\(ABC.sha256), sha-512=\(ABC.sha512) ,Md5=\(ABC.md5), SHA=\(ABC.sha1)")
      )
        == [
          expected(.sha256, "server:digest:sha-256"),
          expected(.sha512, "server:digest:sha-512"),
          expected(.md5, "server:digest:md5"),
          expected(.sha1, "server:digest:sha"),
        ])
  }

  @Test func digest_field_counts_on_a_partial_response() {
    #expect(
      declared(206, ("Digest", "SHA-256=\(ABC.sha256)"))
        == [expected(.sha256, "server:digest:sha-256")])
  }

  @Test func digest_field_keeps_the_first_value_of_an_algorithm() {
    #expect(
      declared(200, ("Digest", "MD5=\(ABC.md5), MD5=\(ABC.sha1)"))
        == [expected(.md5, "server:digest:md5")])
  }

  @Test(arguments: [
    "SHA-256=" + ABC.hex[.sha256]!,  // hex, not base64
    "SHA-256=\(ABC.md5)",  // an MD5's length
    "SHA-256",  // no value
    "SHA-256=",  // empty value
    "UNIXsum=12345",  // an algorithm haul does not compute
    "id-sha-256=\(ABC.sha256)",  // the digest of the uncoded content, not the file
    "SHA-256=\"\(ABC.sha256)\"",  // quoted
    "SHA-256=ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qc=BD/YfIAFa0=",  // '=' inside
  ])
  func digest_field_item_that_is_no_digest_is_ignored(_ value: String) {
    #expect(declared(200, ("Digest", value)) == [])
  }

  // MARK: - Cloud storage

  @Test func google_hash_gives_md5_and_ignores_crc32c() {
    #expect(
      declared(200, ("x-goog-hash", "crc32c=n03x6A=="), ("X-Goog-Hash", "md5=\(ABC.md5)"))
        == [expected(.md5, "server:x-goog-hash:md5")])
    #expect(
      declared(200, ("x-goog-hash", "crc32c=n03x6A==,md5=\(ABC.md5)"))
        == [expected(.md5, "server:x-goog-hash:md5")])
  }

  @Test func google_hash_without_an_md5_declares_nothing() {
    #expect(declared(200, ("x-goog-hash", "crc32c=n03x6A==")) == [])
    #expect(declared(200, ("x-goog-hash", "md5=not-base64")) == [])
  }

  @Test func amazon_checksum_gives_sha256() {
    #expect(
      declared(200, ("x-amz-checksum-sha256", " \(ABC.sha256) "))
        == [expected(.sha256, "server:x-amz-checksum-sha256")])
  }

  @Test func amazon_checksum_of_multipart_parts_is_ignored() {
    #expect(declared(200, ("x-amz-checksum-sha256", "\(ABC.sha256)-3")) == [])
    #expect(declared(200, ("x-amz-checksum-sha256", ABC.md5)) == [])
  }

  // MARK: - The response

  @Test func every_source_is_read_in_order() {
    let results = declared(
      200, ("x-amz-checksum-sha256", ABC.sha256), ("x-goog-hash", "md5=\(ABC.md5)"),
      ("Digest", "SHA-512=\(ABC.sha512)"), ("Content-Digest", "sha-256=:\(ABC.sha256):"),
      ("Repr-Digest", "sha-512=:\(ABC.sha512):"))
    #expect(
      results.map(\.source) == [
        "server:repr-digest:sha-512", "server:content-digest:sha-256", "server:digest:sha-512",
        "server:x-goog-hash:md5", "server:x-amz-checksum-sha256",
      ])
    #expect(ExpectedDigest.algorithms(results) == [.sha256, .sha512, .md5])
  }

  @Test(arguments: [304, 404, 416, 500])
  func response_without_the_file_declares_nothing(_ status: Int) {
    #expect(declared(status, ("Repr-Digest", "sha-256=:\(ABC.sha256):")) == [])
  }

  @Test func response_without_digest_fields_declares_nothing() {
    #expect(declared(200, ("Content-Type", "application/octet-stream"), ("ETag", "\"x\"")) == [])
  }

  @Test func requests_ask_for_sha256_then_sha512() {
    #expect(ServerDigests.wantReprDigest == HTTPField("Want-Repr-Digest", "sha-256=9, sha-512=5"))
  }

  // MARK: - Base64

  @Test func base64_decodes_with_and_without_padding() {
    #expect(Base64.decode("TWFu".utf8) == Array("Man".utf8))
    #expect(Base64.decode("TWE=".utf8) == Array("Ma".utf8))
    #expect(Base64.decode("TWE".utf8) == Array("Ma".utf8))
    #expect(Base64.decode("TQ==".utf8) == Array("M".utf8))
    #expect(Base64.decode("".utf8) == [])
  }

  @Test(arguments: ["T", "TWFuT", "TW=u", "TQ===", "TQ=", "TW-u", "TW_u", "TWF u"])
  func base64_refuses_what_no_encoder_writes(_ text: String) {
    #expect(Base64.decode(text.utf8) == nil)
  }
}
