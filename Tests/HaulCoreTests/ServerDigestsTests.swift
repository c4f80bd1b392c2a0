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

  @Test func reprDigestGivesSHA256AndSHA512() {
    #expect(
      declared(200, ("Repr-Digest", "sha-256=:\(ABC.sha256):, sha-512=:\(ABC.sha512):"))
        == [
          expected(.sha256, "server:repr-digest:sha-256"),
          expected(.sha512, "server:repr-digest:sha-512"),
        ])
  }

  @Test func reprDigestCountsOnAPartialResponse() {
    #expect(
      declared(206, ("repr-digest", "sha-256=:\(ABC.sha256):"))
        == [expected(.sha256, "server:repr-digest:sha-256")])
  }

  @Test func reprDigestIgnoresAlgorithmsHaulDoesNotCheck() {
    // md5 and sha are deprecated in RFC 9530's registry; unixsum is not a digest.
    #expect(
      declared(200, ("Repr-Digest", "md5=:\(ABC.md5):, sha=:\(ABC.sha1):, unixsum=:AAAA:")) == [])
  }

  @Test func reprDigestAcceptsParametersOtherMembersAndMissingPadding() {
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

  @Test func reprDigestReadsEveryFieldOfTheNameAndKeepsTheLastValueOfAKey() {
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
  func malformedStructuredFieldIsIgnoredWhole(_ value: String) {
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
  func reprDigestValueThatIsNoDigestIsIgnored(_ value: String) {
    #expect(declared(200, ("Repr-Digest", value)) == [])
  }

  @Test func malformedReprDigestDoesNotHideOtherFields() {
    #expect(
      declared(200, ("Repr-Digest", "sha-256=:broken"), ("Digest", "MD5=\(ABC.md5)"))
        == [expected(.md5, "server:digest:md5")])
  }

  @Test func contentDigestCountsOnAFullResponseWithoutContentCoding() {
    #expect(
      declared(200, ("Content-Digest", "sha-512=:\(ABC.sha512):"))
        == [expected(.sha512, "server:content-digest:sha-512")])
    #expect(
      declared(200, ("Content-Digest", "sha-256=:\(ABC.sha256):"), ("Content-Encoding", "identity"))
        == [expected(.sha256, "server:content-digest:sha-256")])
  }

  @Test func contentDigestOfAPartIsNeverTheFilesDigest() {
    #expect(declared(206, ("Content-Digest", "sha-256=:\(ABC.sha256):")) == [])
  }

  @Test func contentDigestOfCodedContentIsNotUsed() {
    #expect(
      declared(200, ("Content-Digest", "sha-256=:\(ABC.sha256):"), ("Content-Encoding", "gzip"))
        == [])
    #expect(
      declared(
        200, ("Content-Digest", "sha-256=:\(ABC.sha256):"), ("content-encoding", "identity, br"))
        == [])
  }

  // MARK: - Digest (RFC 3230)

  @Test func digestFieldGivesEachAlgorithmInAnyCase() {
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

  @Test func digestFieldCountsOnAPartialResponse() {
    #expect(
      declared(206, ("Digest", "SHA-256=\(ABC.sha256)"))
        == [expected(.sha256, "server:digest:sha-256")])
  }

  @Test func digestFieldKeepsTheFirstValueOfAnAlgorithm() {
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
  func digestFieldItemThatIsNoDigestIsIgnored(_ value: String) {
    #expect(declared(200, ("Digest", value)) == [])
  }

  // MARK: - Cloud storage

  @Test func googleHashGivesMD5AndIgnoresCRC32C() {
    #expect(
      declared(200, ("x-goog-hash", "crc32c=n03x6A=="), ("X-Goog-Hash", "md5=\(ABC.md5)"))
        == [expected(.md5, "server:x-goog-hash:md5")])
    #expect(
      declared(200, ("x-goog-hash", "crc32c=n03x6A==,md5=\(ABC.md5)"))
        == [expected(.md5, "server:x-goog-hash:md5")])
  }

  @Test func googleHashWithoutAnMD5DeclaresNothing() {
    #expect(declared(200, ("x-goog-hash", "crc32c=n03x6A==")) == [])
    #expect(declared(200, ("x-goog-hash", "md5=not-base64")) == [])
  }

  @Test func amazonChecksumGivesSHA256() {
    #expect(
      declared(200, ("x-amz-checksum-sha256", " \(ABC.sha256) "))
        == [expected(.sha256, "server:x-amz-checksum-sha256")])
  }

  @Test func amazonChecksumOfMultipartPartsIsIgnored() {
    #expect(declared(200, ("x-amz-checksum-sha256", "\(ABC.sha256)-3")) == [])
    #expect(declared(200, ("x-amz-checksum-sha256", ABC.md5)) == [])
  }

  // MARK: - The response

  @Test func everySourceIsReadInOrder() {
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
  func responseWithoutTheFileDeclaresNothing(_ status: Int) {
    #expect(declared(status, ("Repr-Digest", "sha-256=:\(ABC.sha256):")) == [])
  }

  @Test func responseWithoutDigestFieldsDeclaresNothing() {
    #expect(declared(200, ("Content-Type", "application/octet-stream"), ("ETag", "\"x\"")) == [])
  }

  @Test func requestsAskForSHA256ThenSHA512() {
    #expect(ServerDigests.wantReprDigest == HTTPField("Want-Repr-Digest", "sha-256=9, sha-512=5"))
  }

  // MARK: - Base64

  @Test func base64DecodesWithAndWithoutPadding() {
    #expect(Base64.decode("TWFu".utf8) == Array("Man".utf8))
    #expect(Base64.decode("TWE=".utf8) == Array("Ma".utf8))
    #expect(Base64.decode("TWE".utf8) == Array("Ma".utf8))
    #expect(Base64.decode("TQ==".utf8) == Array("M".utf8))
    #expect(Base64.decode("".utf8) == [])
  }

  @Test(arguments: ["T", "TWFuT", "TW=u", "TQ===", "TQ=", "TW-u", "TW_u", "TWF u"])
  func base64RefusesWhatNoEncoderWrites(_ text: String) {
    #expect(Base64.decode(text.utf8) == nil)
  }
}
