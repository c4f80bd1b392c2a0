import Foundation
import HaulTestSupport
import Testing

@testable import HaulCore

/// One checksum line and what it must give (`nil`: a line to skip).
struct ChecksumLineCase: Sendable, CustomTestStringConvertible {
  var name: String
  var line: String
  var algorithm: DigestAlgorithm?
  var hex: String?
  var path: String?
  var testDescription: String { name }

  init(
    _ name: String, _ line: String, _ algorithm: DigestAlgorithm? = nil, hex: String? = nil,
    path: String? = nil
  ) {
    self.name = name
    self.line = line
    self.algorithm = algorithm
    self.hex = hex
    self.path = path
  }
}

@Suite struct ChecksumFileTests {
  static let sha256 = String(repeating: "ab", count: 32)
  static let sha512 = String(repeating: "cd", count: 64)
  static let sha1 = String(repeating: "ef", count: 20)
  static let md5 = String(repeating: "01", count: 16)

  static let good: [ChecksumLineCase] = [
    .init("sha256sum text mode", "\(sha256)  dir/a.iso", .sha256, hex: sha256, path: "dir/a.iso"),
    .init("sha256sum binary mode", "\(sha256) *a.iso", .sha256, hex: sha256, path: "a.iso"),
    .init("one space", "\(sha1) a.jar", .sha1, hex: sha1, path: "a.jar"),
    .init("sha512sum", "\(sha512)  b", .sha512, hex: sha512, path: "b"),
    .init("md5sum, upper case hex", "\(md5.uppercased())  c", .md5, hex: md5, path: "c"),
    .init("name with spaces kept", "\(md5)  my file .txt", .md5, hex: md5, path: "my file .txt"),
    .init("leading space of a name kept", "\(md5)   x", .md5, hex: md5, path: " x"),
    .init(
      "name in normal form", "\(md5)  ./pool//main/./x.deb", .md5, hex: md5, path: "pool/main/x.deb"
    ),
    .init("escaped name", #"\\#(sha256)  a\\b"#, .sha256, hex: sha256, path: "a\\b"),
    // A line feed is a control character: no manifest path has one.
    .init("escaped line feed", #"\\#(sha256)  a\nb"#, .sha256, hex: sha256, path: nil),
    .init("CRLF left over spaces", "\(md5)  c \t", .md5, hex: md5, path: "c"),
    .init("BSD style", "SHA256 (a.iso) = \(sha256)", .sha256, hex: sha256, path: "a.iso"),
    .init("BSD MD5", "MD5 (a b) = \(md5.uppercased())", .md5, hex: md5, path: "a b"),
    .init("BSD SHA1", "SHA1 (x) = \(sha1)", .sha1, hex: sha1, path: "x"),
    .init("BSD SHA512", "SHA512 (x) = \(sha512)", .sha512, hex: sha512, path: "x"),
    .init(
      "openssl dgst", "SHA2-256(out/x.bin)= \(sha256)", .sha256, hex: sha256, path: "out/x.bin"),
    .init("lower-case algorithm", "sha1 (x)=\(sha1)", .sha1, hex: sha1, path: "x"),
    .init("name holding ') = '", "MD5 (a) = b) = \(md5)", .md5, hex: md5, path: "a) = b"),
    .init("escaped BSD name", #"\SHA1 (a\\b) = \#(sha1)"#, .sha1, hex: sha1, path: "a\\b"),
    .init("absolute name matches no entry", "\(md5)  /etc/passwd", .md5, hex: md5, path: nil),
    .init("name with .. matches no entry", "\(md5)  ../x", .md5, hex: md5, path: nil),
    .init("blank line", "  \t"),
    .init("comment", "  # made by sha256sum"),
  ]

  @Test(arguments: good)
  func reads_checksum_line(_ testCase: ChecksumLineCase) throws {
    var line = testCase.line
    let parsed = try line.withUTF8 { try ChecksumLine.parse($0) }
    guard let algorithm = testCase.algorithm else {
      #expect(parsed == nil)
      return
    }
    #expect(parsed == ChecksumLine(algorithm: algorithm, hex: testCase.hex!, path: testCase.path))
  }

  static let bad: [(String, String)] = [
    ("\(String(repeating: "a", count: 56))  x", "56 hex digits is none haul checks"),
    ("\(sha256)  ", "no file name"),
    ("\(sha256)", "no file name after the digest"),
    ("hello world", "not a checksum line"),
    ("SHA384 (x) = \(String(repeating: "a", count: 96))", #""SHA384" is not a digest haul checks"#),
    ("BLAKE2b (x) = \(sha512)", #""BLAKE2B" is not a digest haul checks"#),
    ("SHA256 (x) = \(md5)", "SHA-256 digest has 64 hex digits, not 32"),
    ("SHA256 (x) = zz", "not hex"),
    ("SHA256 (x)", "not a checksum line"),
    (#"\\#(md5)  a\tb"#, "bad escape"),
  ]

  @Test(arguments: bad)
  func rejects_what_is_no_checksum_line(_ line: String, _ reason: String) {
    var text = line
    #expect {
      try text.withUTF8 { try ChecksumLine.parse($0) }
    } throws: { error in
      (error as? ChecksumLineError)?.reason.contains(reason) == true
    }
  }

  // MARK: - Files

  @Test func table_reads_several_files_by_path() throws {
    let fixture = ManifestFixture()
    let sums256 = fixture.file("SHA256SUMS", ["\(Self.sha256)  a", "\(Self.sha256) *b"])
    let sums = fixture.file("MD5SUMS", ["# md5", "", "MD5 (./a) = \(Self.md5)"])
    let table = try ChecksumTable(reading: [sums256, sums])
    #expect(table.count == 2)
    #expect(table.digests(for: "a") == [.sha256: Self.sha256, .md5: Self.md5])
    #expect(table.digests(for: "b") == [.sha256: Self.sha256])
    #expect(table.digests(for: "c").isEmpty)
    #expect(table.place(of: .md5, for: "a") == "\(sums):3")
  }

  @Test func repeated_identical_digest_is_fine() throws {
    let fixture = ManifestFixture()
    let sums = fixture.file("SUMS", ["\(Self.md5)  a", "MD5 (a) = \(Self.md5.uppercased())"])
    #expect(try ChecksumTable(reading: [sums]).digests(for: "a") == [.md5: Self.md5])
  }

  @Test func contradiction_between_files_names_both_places() throws {
    let fixture = ManifestFixture()
    let first = fixture.file("one", ["\(Self.md5)  x/a"])
    let second = fixture.file("two", ["", "\(String(repeating: "9", count: 32))  ./x/a"])
    #expect {
      try ChecksumTable(reading: [first, second])
    } throws: { error in
      guard let error = error as? ChecksumFileError else { return false }
      return error.code == .contradiction && error.description.hasPrefix("\(second):2: ")
        && error.reason.contains("\(first):1")
    }
  }

  @Test func bad_line_names_its_file_and_line() throws {
    let fixture = ManifestFixture()
    let sums = fixture.file("SUMS", ["\(Self.md5)  a", "garbage"])
    #expect(
      throws: ChecksumFileError(
        .badLine, file: sums, line: 2,
        reason: "not a checksum line (HEX  NAME, or ALGO (NAME) = HEX)")
    ) {
      try ChecksumTable(reading: [sums])
    }
  }

  @Test func missing_file_is_unreadable() throws {
    let fixture = ManifestFixture()
    #expect {
      try ChecksumTable(reading: [fixture.directory + "/nope"])
    } throws: { error in
      (error as? ChecksumFileError)?.code == .unreadable
        && (error as? ChecksumFileError)?.description.contains("cannot open") == true
    }
  }

  @Test func clear_signed_file_is_read_through_its_armor() throws {
    let fixture = ManifestFixture()
    let sums = fixture.file(
      "CHECKSUM",
      [
        "-----BEGIN PGP SIGNED MESSAGE-----", "Hash: SHA256", "",
        "# Fedora-Server-dvd-x86_64-40.iso: 2612854784 bytes",
        "SHA256 (Fedora-Server-dvd-x86_64-40.iso) = \(Self.sha256)",
        "- -not-a-line-if-read-raw", "-----BEGIN PGP SIGNATURE-----", "", "iQIzBAEBCAAdFiEE",
        "=abcd", "-----END PGP SIGNATURE-----",
      ])
    #expect {
      try ChecksumTable(reading: [sums])
    } throws: { error in
      // The dash-escaped line is content: "-not-a-line-if-read-raw" is not a checksum line.
      (error as? ChecksumFileError)?.line == 6
    }
    let good = fixture.file(
      "CHECKSUM2",
      [
        "-----BEGIN PGP SIGNED MESSAGE-----", "Hash: SHA256", "",
        "SHA256 (Fedora-Server-dvd-x86_64-40.iso) = \(Self.sha256)",
        "-----BEGIN PGP SIGNATURE-----", "", "iQIzBAEBCAAdFiEE", "-----END PGP SIGNATURE-----",
      ])
    #expect(
      try ChecksumTable(reading: [good]).digests(for: "Fedora-Server-dvd-x86_64-40.iso")
        == [.sha256: Self.sha256])
  }

  // MARK: - Applied to a manifest

  @Test func downloads_get_the_digests_of_their_path() throws {
    let fixture = ManifestFixture()
    let sums = fixture.file("SHA256SUMS", ["\(Self.sha256)  a.iso", "\(Self.sha256)  unused.iso"])
    let md5sums = fixture.file("MD5SUMS", ["\(Self.md5)  d/b.iso"])
    var manifest = fixture.manifest(lines: [
      "http://h/a.iso", #"{"url":"http://h/b","path":"./d/b.iso","md5":"\#(Self.md5)"}"#,
      #"{"url":"http://h/c","path":"c.iso"}"#,
    ])
    manifest.checksums = try ChecksumTable(reading: [sums, md5sums])
    _ = try manifest.validate()
    let entries = Array(manifest.entries())
    #expect(entries.map(\.expectedDigests) == [[.sha256: Self.sha256], [.md5: Self.md5], [:]])
    #expect(entries[0].sha256 == Self.sha256)
    #expect(entries[0].expectedDigestList.map(\.source) == ["checksums:sha256"])
    // The line's own md5 agrees with the file's; it stays the manifest's.
    #expect(entries[1].expectedDigestList.map(\.source) == ["manifest:md5"])
    #expect(entries[1].checksumDigests.isEmpty)
  }

  @Test func contradiction_with_the_manifest_names_both_places() throws {
    let fixture = ManifestFixture()
    let sums = fixture.file("SUMS", ["# list", "\(Self.sha1)  b"])
    var manifest = fixture.manifest(lines: [
      "http://h/a", "# comment",
      #"{"url":"http://h/b","sha1":"\#(String(repeating: "0", count: 40))"}"#,
    ])
    manifest.checksums = try ChecksumTable(reading: [sums])
    let error = try #require(ManifestFixture.validationError(manifest))
    #expect(error.description == #"m.jsonl:3: "sha1" differs from the one at \#(sums):2"#)
  }

  @Test func uploads_are_not_given_checksums() throws {
    let fixture = ManifestFixture()
    fixture.createFile("up.bin")
    let sums = fixture.file("SUMS", ["\(Self.md5)  up.bin"])
    var manifest = fixture.manifest(lines: [
      #"{"url":"http://h/put","op":"upload","path":"up.bin","md5":"\#(String(repeating: "0", count: 32))"}"#
    ])
    manifest.checksums = try ChecksumTable(reading: [sums])
    _ = try manifest.validate()
    #expect(
      Array(manifest.entries()).map(\.expectedDigests) == [
        [.md5: String(repeating: "0", count: 32)]
      ])
  }
}

extension ManifestFixture {
  /// Writes `lines`, each followed by `\n`, to `name` in the directory, and returns its path.
  func file(_ name: String, _ lines: [String]) -> String {
    let path = directory + "/" + name
    let written = FileManager.default.createFile(
      atPath: path, contents: Data(lines.map { $0 + "\n" }.joined().utf8))
    precondition(written, "cannot write \(path)")
    return path
  }
}
