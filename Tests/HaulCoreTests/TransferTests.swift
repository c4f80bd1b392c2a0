import Foundation
import HaulTestSupport
import Testing

@testable import HaulCore

/// A transfer described in code that must be refused, and the manifest line with the same
/// fields, which must be refused for the same reason.
struct BadTransferCase: Sendable, CustomTestStringConvertible {
  var name: String
  var build: @Sendable () throws(InvalidTransfer) -> Transfer
  var line: String
  var reason: String
  var testDescription: String { name }

  init(
    _ name: String, _ line: String, _ reason: String,
    _ build: @escaping @Sendable () throws(InvalidTransfer) -> Transfer
  ) {
    self.name = name
    self.line = line
    self.reason = reason
    self.build = build
  }
}

@Suite("Transfers in code: checked by a manifest line's rules, failing with its reasons")
struct TransferTests {
  static let url = URL(string: "http://h/x")!
  static let digest = String(repeating: "ab", count: 32)

  static let badCases: [BadTransferCase] = [
    BadTransferCase(
      "absolute path", #"{"url":"http://h/x","path":"/etc/passwd"}"#,
      #""path" must be relative"#
    ) { () throws(InvalidTransfer) in try .download(from: url, to: "/etc/passwd") },
    BadTransferCase(
      "parent segment", #"{"url":"http://h/x","path":"a/../../b"}"#,
      #""path" must not contain "..""#
    ) { () throws(InvalidTransfer) in try .download(from: url, to: "a/../../b") },
    BadTransferCase(
      "NUL in path", #"{"url":"http://h/x","path":"a\u0000b"}"#,
      #""path" contains a control character"#
    ) { () throws(InvalidTransfer) in try .download(from: url, to: "a\u{0}b") },
    BadTransferCase(
      "line feed in path", #"{"url":"http://h/x","path":"a\nb"}"#,
      #""path" contains a control character"#
    ) { () throws(InvalidTransfer) in try .download(from: url, to: "a\nb") },
    BadTransferCase(
      "DEL in path", #"{"url":"http://h/x","path":"a\u007Fb"}"#,
      #""path" contains a control character"#
    ) { () throws(InvalidTransfer) in try .download(from: url, to: "a\u{7F}b") },
    BadTransferCase(
      "empty path", #"{"url":"http://h/x","path":""}"#, #""path" is empty"#
    ) { () throws(InvalidTransfer) in try .download(from: url, to: "") },
    BadTransferCase(
      "path naming a folder", #"{"url":"http://h/x","path":"a/"}"#,
      #""path" must name a file, not end in "/""#
    ) { () throws(InvalidTransfer) in try .download(from: url, to: "a/") },
    BadTransferCase(
      "path of dots only", #"{"url":"http://h/x","path":"./."}"#, #""path" names no file"#
    ) { () throws(InvalidTransfer) in try .download(from: url, to: "./.") },
    BadTransferCase(
      "upload from an absolute path",
      #"{"url":"http://h/x","op":"upload","path":"/etc/shadow"}"#, #""path" must be relative"#
    ) { () throws(InvalidTransfer) in try .upload("/etc/shadow", to: url) },
    BadTransferCase(
      "URL without a file name", #"{"url":"http://h/d/"}"#,
      #"no file name in URL; give "path""#
    ) { () throws(InvalidTransfer) in try .download(from: URL(string: "http://h/d/")!) },
    BadTransferCase(
      "ftp URL", #"{"url":"ftp://h/x"}"#, #"unsupported scheme "ftp" in "url" (http or https only)"#
    ) { () throws(InvalidTransfer) in try .download(from: URL(string: "ftp://h/x")!) },
    BadTransferCase(
      "port 0", #"{"url":"http://h:0/x"}"#, #""url" has port 0 outside 1 to 65535"#
    ) { () throws(InvalidTransfer) in try .download(from: URL(string: "http://h:0/x")!) },
    BadTransferCase(
      "ftp mirror", #"{"url":"http://h/x","mirrors":["http://m/x","ftp://m/x"]}"#,
      #"unsupported scheme "ftp" in "mirrors" item 2 (http or https only)"#
    ) { () throws(InvalidTransfer) in
      try .download(
        from: url, mirrors: [URL(string: "http://m/x")!, URL(string: "ftp://m/x")!])
    },
    BadTransferCase(
      "negative size", #"{"url":"http://h/x","size":-1}"#, #""size" must not be negative"#
    ) { () throws(InvalidTransfer) in try .download(from: url, size: -1) },
    BadTransferCase(
      "short sha256", #"{"url":"http://h/x","sha256":"abc"}"#,
      #""sha256" must be 64 hex digits"#
    ) { () throws(InvalidTransfer) in try .download(from: url, digests: [.sha256: "abc"]) },
    BadTransferCase(
      "md5 that is not hex", #"{"url":"http://h/x","md5":"zz"}"#, #""md5" must be 32 hex digits"#
    ) { () throws(InvalidTransfer) in try .download(from: url, digests: [.md5: "zz"]) },
    BadTransferCase(
      "a header haul sets", #"{"url":"http://h/x","headers":{"range":"bytes=0-"}}"#,
      #"header "Range" is set by haul and cannot be given"#
    ) { () throws(InvalidTransfer) in
      try .download(from: url, headers: [HTTPField("range", "bytes=0-")])
    },
    BadTransferCase(
      "CR LF in a header value", #"{"url":"http://h/x","headers":{"X-A":"1\r\nX-B: 2"}}"#,
      #"value of header "X-A" contains CR or LF"#
    ) { () throws(InvalidTransfer) in
      try .download(from: url, headers: [HTTPField("X-A", "1\r\nX-B: 2")])
    },
  ]

  @Test(arguments: badCases)
  func a_bad_transfer_is_refused_with_the_reason_of_its_manifest_line(_ bad: BadTransferCase)
    throws
  {
    #expect(throws: InvalidTransfer(bad.reason)) { try bad.build() }
    let fixture = ManifestFixture()
    let error = ManifestFixture.validationError(fixture.manifest(lines: [bad.line]))
    #expect(error?.reason == bad.reason)
  }

  @Test func a_download_takes_the_fields_in_their_normal_form() throws {
    let transfer = try Transfer.download(
      from: URL(string: "HTTPS://h/d/f%20x.bin")!, mirrors: [URL(string: "Http://m/f")!],
      size: 7, digests: [.sha256: Self.digest.uppercased()])
    #expect(transfer.url.absoluteString == "https://h/d/f%20x.bin")
    #expect(transfer.mirrors == [URL(string: "http://m/f")!])
    #expect(transfer.path == "f x.bin")
    #expect(transfer.method == "GET")
    #expect(transfer.digests[.sha256] == Self.digest)
    #expect(try Transfer.download(from: Self.url, to: "./a//b/./c").path == "a/b/c")
  }

  @Test func an_upload_takes_its_method() throws {
    let put = try Transfer.upload("out/a", to: Self.url)
    let post = try Transfer.upload("out/a", to: Self.url, method: .post)
    #expect(put.operation == .upload && put.method == "PUT")
    #expect(post.method == "POST")
  }

  @Test func a_resumable_upload_names_its_protocol_and_no_method() throws {
    let transfer = try Transfer.resumableUpload("out/a", to: Self.url, through: .ietf)
    #expect(transfer.resumable == .ietf && transfer.entry(line: 1).resumable == .ietf)
    #expect(transfer.manifestLine.contains(#""resumable":"ietf""#), "\(transfer.manifestLine)")
    #expect(!transfer.manifestLine.contains("method"), "\(transfer.manifestLine)")
    #expect(try Transfer.upload("out/a", to: Self.url).resumable == nil)
  }

  @Test func a_header_name_given_twice_is_refused() {
    #expect(throws: InvalidTransfer(#"header "X-A" is given twice"#)) {
      try Transfer.download(
        from: Self.url, headers: [HTTPField("X-A", "1"), HTTPField("X-A", "2")])
    }
  }

  @Test func the_manifest_line_of_a_transfer_reads_back_as_the_same_entry() throws {
    let transfers = [
      try Transfer.download(
        from: URL(string: "http://h/a")!, to: "d/a \"q\"", mirrors: [URL(string: "http://m/a")!],
        size: 3, digests: [.sha256: Self.digest, .md5: String(repeating: "0", count: 32)],
        headers: [HTTPField("X-Token", "t")]),
      try Transfer.upload("u", to: URL(string: "http://h/in")!, method: .post),
      try Transfer.resumableUpload("u", to: URL(string: "http://h/files/")!, through: .tus),
    ]
    for transfer in transfers {
      let entry = transfer.entry(line: 4)
      var text = entry.text
      let parsed = try text.withUTF8 { bytes throws(ManifestLineError) in
        try ManifestLineParser.parse(bytes, line: 4)
      }
      #expect(parsed == entry)
    }
  }

  @Test func a_list_refuses_a_second_transfer_to_the_same_file() throws {
    let transfers = [
      try Transfer.download(from: URL(string: "http://h/a")!, to: "f"),
      try Transfer.download(from: URL(string: "http://h/b")!),
      try Transfer.download(from: URL(string: "http://m/c")!, to: "./f"),
    ]
    #expect(throws: InvalidTransfer("same destination as line 1", position: 3)) {
      try TransferList(transfers, outputDirectory: "/nonexistent")
    }
  }

  @Test func a_list_refuses_an_upload_whose_file_is_missing() throws {
    let fixture = ManifestFixture()
    fixture.createFile("here")
    let here = try Transfer.upload("here", to: URL(string: "http://h/1")!)
    let gone = try Transfer.upload("gone", to: URL(string: "http://h/2")!)
    #expect(throws: InvalidTransfer(#"upload file "gone" does not exist"#, position: 2)) {
      try TransferList([here, gone], outputDirectory: fixture.directory)
    }
    #expect(try TransferList([here], outputDirectory: fixture.directory).statistics.entries == 1)
  }

  @Test func a_list_numbers_its_entries_by_position_and_sums_their_sizes() throws {
    let list = try TransferList(
      [
        try .download(from: URL(string: "http://h/a")!, size: 5),
        try .download(from: URL(string: "http://h/b")!, size: 7),
      ], outputDirectory: ".")
    #expect(list.map(\.line) == [1, 2])
    #expect(list.map(\.path) == ["a", "b"])
    #expect(
      list.statistics == ManifestStatistics(entries: 2, knownBytes: 12, entriesWithoutSize: 0))
  }

  @Test func a_list_for_urlsession_refuses_an_ipv6_literal_host() throws {
    let transfer = try Transfer.download(from: URL(string: "http://[::1]:8080/a")!)
    #expect(throws: InvalidTransfer.self) {
      try TransferList([transfer], outputDirectory: ".", refusesIPv6Literals: true)
    }
    #expect(try TransferList([transfer], outputDirectory: ".").statistics.entries == 1)
  }
}
