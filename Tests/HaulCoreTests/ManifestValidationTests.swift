import Foundation
import HaulTestSupport
import Testing

@testable import HaulCore

/// One manifest that `validate()` must reject, with the line it must name and words its
/// reason must contain.
struct BadManifestCase: Sendable, CustomTestStringConvertible {
  var name: String
  var lines: [String]
  var line: Int
  var reason: [String]
  var testDescription: String { name }

  init(_ name: String, _ lines: [String], line: Int, _ reason: String...) {
    self.name = name
    self.lines = lines
    self.line = line
    self.reason = reason
  }

  /// A bad `line` after one good line and a comment, so it is reported as line 3.
  static func third(_ name: String, _ badLine: String, _ reason: String...) -> Self {
    var result = Self(name, [#"{"url":"http://h/ok"}"#, "# comment", badLine], line: 3)
    result.reason = reason
    return result
  }
}

@Suite struct ManifestValidationTests {
  static let syntax: [BadManifestCase] = [
    .third("unterminated object", #"{"url":"http://h/a""#, "invalid JSON", "column"),
    .third("trailing garbage", #"{"url":"http://h/a"} x"#, "invalid JSON", "after the JSON value"),
    .third("trailing comma", #"{"url":"http://h/a",}"#, "invalid JSON"),
    .third("single quotes", #"{'url':'http://h/a'}"#, "invalid JSON at column 2", #"found "'""#),
    .third("bad escape", #"{"url":"http://h/\a"}"#, "invalid JSON", "escape"),
    .third(
      "lone surrogate", #"{"url":"http://h/a","path":"\ud800x"}"#, "invalid JSON", "surrogate"),
    .third(
      "raw tab in string", "{\"url\":\"http://h/a\",\"path\":\"a\tb\"}", "invalid JSON",
      "control character"),
    .third("leading zero", #"{"url":"http://h/a","size":012}"#, "invalid JSON", "leading zero"),
    .third(
      "nested too deep",
      #"{"url":"http://h/a","headers":"# + String(repeating: "[", count: 40)
        + String(repeating: "]", count: 40) + "}", "invalid JSON", "nested"),
    .third("repeated key", #"{"url":"http://h/a","url":"http://h/b"}"#, #"repeated key "url""#),
    .third(
      "repeated key spelled with an escape", #"{"url":"http://h/a","\u0075rl":"http://h/b"}"#,
      #"repeated key "url""#),
    .third(
      "repeated header name", #"{"url":"http://h/a","headers":{"X-A":"1","X-A":"2"}}"#,
      #"repeated key "X-A""#),
    .third("array line", #"[{"url":"http://h/a"}]"#, "JSON object", "array"),
    .third("number line", "42", "JSON object", "number"),
    .third("string line", #""http://h/a""#, "JSON object", "string"),
    .third("plain words", "hello world", "not a JSON object", "http(s) URL"),
  ]

  static let fields: [BadManifestCase] = [
    .third("unknown field", #"{"url":"http://h/a","sizee":1}"#, #"unknown field "sizee""#),
    .third("missing url", #"{"path":"a"}"#, #"missing "url""#),
    .third("url not a string", #"{"url":42}"#, #""url" must be a string"#, "number"),
    .third("path not a string", #"{"url":"http://h/a","path":["a"]}"#, #""path" must be a string"#),
    .third("op not a string", #"{"url":"http://h/a","op":true}"#, #""op" must be a string"#),
    .third(
      "op unknown", #"{"url":"http://h/a","op":"copy"}"#, #""op" must be "download" or "upload""#),
    .third(
      "method on a download", #"{"url":"http://h/a","method":"PUT"}"#,
      #""method" is only for uploads"#),
    .third(
      "method GET", #"{"url":"http://h/a","op":"upload","path":"f","method":"GET"}"#,
      #""method" must be "PUT" or "POST""#),
    .third(
      "method lower case", #"{"url":"http://h/a","op":"upload","path":"f","method":"put"}"#,
      #""method" must be "PUT" or "POST""#),
    .third(
      "size as string", #"{"url":"http://h/a","size":"10"}"#, #""size" must be a number"#, "string"),
    .third("size null", #"{"url":"http://h/a","size":null}"#, #""size" must be a number"#, "null"),
    .third("size negative", #"{"url":"http://h/a","size":-1}"#, #""size" must not be negative"#),
    .third("size fraction", #"{"url":"http://h/a","size":1.5}"#, #""size" must be a whole number"#),
    .third(
      "size negative exponent", #"{"url":"http://h/a","size":1e-3}"#,
      #""size" must be a whole number"#),
    .third(
      "size above Int64", #"{"url":"http://h/a","size":9223372036854775808}"#,
      #""size" is too large"#),
    .third("size huge exponent", #"{"url":"http://h/a","size":1e400}"#, #""size" is too large"#),
    .third(
      "sha256 short", #"{"url":"http://h/a","sha256":"abc"}"#, #""sha256" must be 64 hex digits"#),
    .third(
      "sha256 not hex",
      #"{"url":"http://h/a","sha256":""# + String(repeating: "g", count: 64) + #""}"#,
      #""sha256" must be 64 hex digits"#),
    .third("sha256 as number", #"{"url":"http://h/a","sha256":1}"#, #""sha256" must be a string"#),
    .third(
      "sha512 of a sha256's length",
      #"{"url":"http://h/a","sha512":""# + String(repeating: "a", count: 64) + #""}"#,
      #""sha512" must be 128 hex digits"#),
    .third(
      "sha512 not hex",
      #"{"url":"http://h/a","sha512":""# + String(repeating: "x", count: 128) + #""}"#,
      #""sha512" must be 128 hex digits"#),
    .third(
      "sha1 one digit short",
      #"{"url":"http://h/a","sha1":""# + String(repeating: "0", count: 39) + #""}"#,
      #""sha1" must be 40 hex digits"#),
    .third(
      "sha1 with a space",
      #"{"url":"http://h/a","sha1":" "# + String(repeating: "0", count: 39) + #""}"#,
      #""sha1" must be 40 hex digits"#),
    .third(
      "md5 one digit long",
      #"{"url":"http://h/a","md5":""# + String(repeating: "F", count: 33) + #""}"#,
      #""md5" must be 32 hex digits"#),
    .third("md5 empty", #"{"url":"http://h/a","md5":""}"#, #""md5" must be 32 hex digits"#),
    .third("md5 as array", #"{"url":"http://h/a","md5":["0"]}"#, #""md5" must be a string"#),
    .third("sha1 null", #"{"url":"http://h/a","sha1":null}"#, #""sha1" must be a string"#, "null"),
    .third(
      "repeated digest key",
      #"{"url":"http://h/a","md5":"# + "\"" + String(repeating: "0", count: 32) + #"","md5":"x"}"#,
      #"repeated key "md5""#),
    .third(
      "digest key misspelled", #"{"url":"http://h/a","sha384":"00"}"#, #"unknown field "sha384""#),
    .third(
      "digest key in upper case", #"{"url":"http://h/a","SHA1":"00"}"#, #"unknown field "SHA1""#),
    .third(
      "headers as array", #"{"url":"http://h/a","headers":["X: y"]}"#,
      #""headers" must be an object"#),
    .third(
      "header value number", #"{"url":"http://h/a","headers":{"X-A":1}}"#,
      #"header "X-A" must be a string"#),
    .third(
      "mirrors as string", #"{"url":"http://h/a","mirrors":"http://m/a"}"#,
      #""mirrors" must be an array"#),
    .third(
      "mirror not a string", #"{"url":"http://h/a","mirrors":["http://m/a",7]}"#,
      #""mirrors" item 2 must be a string"#),
  ]

  static let urls: [BadManifestCase] = [
    .third("ftp url", #"{"url":"ftp://h/a"}"#, #"unsupported scheme "ftp""#, #""url""#),
    .third("file url", #"{"url":"FILE:///etc/passwd"}"#, #"unsupported scheme "FILE""#),
    .third(
      "ftp mirror", #"{"url":"http://h/a","mirrors":["https://m/a","ftp://m/a"]}"#,
      #"unsupported scheme "ftp""#, #""mirrors" item 2"#),
    .third("no scheme", #"{"url":"h/a"}"#, #""url" is not an http(s) URL"#),
    .third("no host", #"{"url":"http:///a"}"#, #""url" has no host"#),
    .third(
      "no host in mirror", #"{"url":"http://h/a","mirrors":["https:/m/a"]}"#,
      #""mirrors" item 1 has no host"#),
    .third(
      "control character in url", #"{"url":"http://h/a\nb"}"#,
      #""url" contains a control character"#),
    .third("password never quoted", #"{"url":"ftp://user:secret@h/a"}"#, "unsupported scheme"),
    .third("bare ftp line", "ftp://h/a", #"unsupported scheme "ftp""#),
    .third("bare url without host", "http:///a", "has no host"),
    .third(
      "port above 65535", #"{"url":"http://h:65536/a"}"#, #""url" has port 65536"#, "1 to 65535"),
    .third("port 0", #"{"url":"http://127.0.0.1:0/a"}"#, #""url" has port 0 outside"#),
    .third(
      "port of 20 digits", #"{"url":"http://u:p@h:99999999999999999999/a"}"#,
      #""url" has port 99999999999999999999 outside"#),
    .third(
      "port above 65535 in a mirror", #"{"url":"http://h/a","mirrors":["https://m:70000/a"]}"#,
      #""mirrors" item 1 has port 70000"#),
    .third("port above 65535 on a bare line", "http://h:65536/a", "URL has port 65536"),
    .third("port above 65535 after an IPv6 literal", "http://[::1]:65536/a", "has port 65536"),
    .third("port without host", #"{"url":"http://:80/a"}"#, #""url" has no host"#),
    .third("user info without host", #"{"url":"http://user@/a"}"#, #""url" has no host"#),
  ]

  static let paths: [BadManifestCase] = [
    .third(
      "absolute path", #"{"url":"http://h/a","path":"/etc/passwd"}"#, #""path" must be relative"#),
    .third(
      "dot-dot path", #"{"url":"http://h/a","path":"../a"}"#, #""path" must not contain "..""#),
    .third(
      "inner dot-dot", #"{"url":"http://h/a","path":"a/../../b"}"#, #""path" must not contain "..""#
    ),
    .third(
      "trailing dot-dot", #"{"url":"http://h/a","path":"a/.."}"#, #""path" must not contain "..""#),
    .third(
      "NUL in path", #"{"url":"http://h/a","path":"a\u0000b"}"#,
      #""path" contains a control character"#),
    .third(
      "unit separator in path", #"{"url":"http://h/a","path":"a\u001fb"}"#,
      #""path" contains a control character"#),
    .third(
      "DEL in path", #"{"url":"http://h/a","path":"a\u007f"}"#,
      #""path" contains a control character"#),
    .third(
      "newline in path", #"{"url":"http://h/a","path":"a\nb"}"#,
      #""path" contains a control character"#),
    .third("empty path", #"{"url":"http://h/a","path":""}"#, #""path" is empty"#),
    .third("dot path", #"{"url":"http://h/a","path":"./."}"#, #""path" names no file"#),
    .third("directory path", #"{"url":"http://h/a","path":"dir/"}"#, #""path" must name a file"#),
    .third(
      "url ending in slash", #"{"url":"http://h/dir/"}"#, #"no file name in URL; give "path""#),
    .third("url without path", #"{"url":"http://h"}"#, "no file name in URL"),
    .third("url with only a query", #"{"url":"http://h?x=1"}"#, "no file name in URL"),
    .third("bare url ending in slash", "https://h/dir/", "no file name in URL"),
    .third(
      "encoded slash in name", #"{"url":"http://h/a%2Fb"}"#,
      #"file name in URL contains "/" once decoded"#),
    .third("dot-dot name", #"{"url":"http://h/x/.."}"#, #"file name in URL is "..""#),
    .third(
      "encoded control in name", #"{"url":"http://h/a%0Ab"}"#,
      "file name in URL contains a control character"),
  ]

  static let headers: [BadManifestCase] =
    HTTPField.namesOwnedByHaul.flatMap { name in
      [name, name.lowercased(), name.uppercased()].map { spelling in
        BadManifestCase.third(
          "owned header \(spelling)", #"{"url":"http://h/a","headers":{""# + spelling + #"":"x"}}"#,
          #"header ""# + name + #"" is set by haul"#)
      }
    } + [
      .third(
        "CR in header value", #"{"url":"http://h/a","headers":{"X-A":"a\r\nX-B: b"}}"#, "CR or LF"),
      .third("LF in header value", #"{"url":"http://h/a","headers":{"X-A":"a\nb"}}"#, "CR or LF"),
      .third(
        "CR in header name", #"{"url":"http://h/a","headers":{"X-A\r":"a"}}"#,
        "header name contains CR or LF"),
      .third(
        "NUL in header value", #"{"url":"http://h/a","headers":{"X-A":"a\u0000"}}"#,
        "control character"),
      .third(
        "space in header name", #"{"url":"http://h/a","headers":{"Bad Name":"a"}}"#,
        "not a valid HTTP token"),
      .third(
        "colon in header name", #"{"url":"http://h/a","headers":{"X-A:":"a"}}"#,
        "not a valid HTTP token"),
      .third(
        "empty header name", #"{"url":"http://h/a","headers":{"":"a"}}"#, "header name is empty"),
    ]

  static let duplicates: [BadManifestCase] = [
    BadManifestCase(
      "same path",
      [#"{"url":"http://h/a","path":"x/y"}"#, "", #"{"url":"http://h/b","path":"x/y"}"#],
      line: 3, "same destination as line 1"),
    BadManifestCase(
      "same path once normalized",
      [
        #"{"url":"http://h/1"}"#, #"{"url":"http://h/a","path":"x//y"}"#,
        #"{"url":"http://h/b","path":"./x/./y"}"#,
      ],
      line: 3, "same destination as line 2"),
    BadManifestCase(
      "default name equals a path",
      [#"{"url":"http://h/a","path":"f.bin"}"#, #"{"url":"https://m/dir/f.bin"}"#],
      line: 2, "same destination as line 1"),
    BadManifestCase(
      "two bare urls with one name", ["# list", "http://h/one/f%20x.bin", "http://h/two/f x.bin"],
      line: 3, "same destination as line 2"),
  ]

  /// Which reason wins when a line has more than one problem: a JSON syntax error anywhere
  /// (a repeated key included) before any field's problem, and among field problems the
  /// first in the order written.
  static let precedence: [BadManifestCase] = [
    .third(
      "syntax error after an unknown field", #"{"sizee":1,"url":}"#,
      "invalid JSON at column 18: unexpected '}'"),
    .third(
      "syntax error after a bad header",
      #"{"url":"http://h/a","headers":{"Host":"x","X-A":}}"#, "invalid JSON at column 49"),
    .third(
      "repeated key after a bad value", #"{"url":1,"url":"http://h/a"}"#, #"repeated key "url""#),
    .third("repeated unknown key", #"{"url":"http://h/a","x":1,"x":2}"#, #"repeated key "x""#),
    .third(
      "first bad field wins", #"{"size":"1","url":42}"#, #""size" must be a number, not a string"#
    ),
    .third(
      "first bad field wins, url first", #"{"url":42,"size":"1"}"#,
      #""url" must be a string, not a number"#),
    .third(
      "bad header before an unknown field", #"{"url":"http://h/a","headers":{"Host":"x"},"zz":1}"#,
      #"header "Host" is set by haul"#),
    .third(
      "unknown field spelled with an escape", #"{"url":"http://h/a","p\u0061th2":"x"}"#,
      #"unknown field "path2""#),
    .third(
      "first bad mirror wins", #"{"url":"http://h/a","mirrors":[1,"ftp://m/a"]}"#,
      #""mirrors" item 1 must be a string, not a number"#),
    .third(
      "missing url after the fields are read", #"{"path":"a","op":"copy"}"#,
      #""op" must be "download" or "upload""#),
    .third(
      "upper-case scheme still refused when not http", #"{"url":"Ftp://h/a"}"#,
      #"unsupported scheme "Ftp""#),
  ]

  @Test(arguments: syntax + fields + urls + paths + headers + duplicates + precedence)
  func rejects_bad_line(_ testCase: BadManifestCase) throws {
    let fixture = ManifestFixture()
    let error = try #require(
      ManifestFixture.validationError(fixture.manifest(lines: testCase.lines)))
    #expect(error.manifest == "m.jsonl")
    #expect(error.line == testCase.line, "\(error)")
    for words in testCase.reason {
      #expect(error.reason.contains(words), "\(error.reason) should contain \(words)")
    }
    #expect(error.description.hasPrefix("m.jsonl:\(testCase.line): "))
    #expect(!error.reason.contains("secret"))
  }

  @Test func ipv6_literals_are_refused_only_when_the_transport_cannot_reach_them() throws {
    let fixture = ManifestFixture()
    let lines = [
      "http://h/a", #"{"url":"http://h/b","mirrors":["http://h/m","http://[::1]:8080/b"]}"#,
    ]
    #expect(try fixture.manifest(lines: lines).validate().entries == 2)
    var refusing = fixture.manifest(lines: lines)
    refusing.refusesIPv6Literals = true
    let error = try #require(ManifestFixture.validationError(refusing))
    #expect(error.line == 2)
    #expect(error.reason.hasPrefix(#""mirrors" item 2 has an IPv6 literal host"#), "\(error)")
  }

  @Test func header_values_never_appear_in_reasons() throws {
    let fixture = ManifestFixture()
    let manifest = fixture.manifest(lines: [
      #"{"url":"http://h/a","headers":{"Authorization":"Bearer sekrit\n"}}"#
    ])
    let error = try #require(ManifestFixture.validationError(manifest))
    #expect(error.line == 1)
    #expect(error.reason.contains("Authorization"))
    #expect(!error.reason.contains("sekrit"))
  }

  @Test func invalid_utf8_is_reported_on_its_line() throws {
    let fixture = ManifestFixture()
    let cases: [[UInt8]] = [
      [0xC3, 0x28],  // bad continuation
      [0xC0, 0xAF],  // overlong "/"
      [0xED, 0xA0, 0x80],  // encoded surrogate U+D800
      [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
      [0xE2, 0x82],  // truncated
      [0xFF],
    ]
    for bad in cases {
      let bytes =
        Array("{\"url\":\"http://h/ok\"}\n{\"url\":\"http://h/a\",\"path\":\"x".utf8) + bad
        + Array("\"}\n".utf8)
      let error = try #require(ManifestFixture.validationError(fixture.manifest(bytes: bytes)))
      #expect(error.line == 2)
      #expect(error.reason.contains("invalid UTF-8"), "\(error)")
    }
    let comment = Array("# caf".utf8) + [0xE9] + Array("\n".utf8)
    let error = try #require(ManifestFixture.validationError(fixture.manifest(bytes: comment)))
    #expect(error.line == 1)
    #expect(error.reason.contains("invalid UTF-8"))
  }

  @Test func line_over_one_mebibyte_is_an_error_on_its_line() throws {
    let fixture = ManifestFixture()
    let padding = String(repeating: "a", count: 2 << 20)
    let manifest = fixture.manifest(lines: [
      #"{"url":"http://h/ok"}"#, "", #"{"url":"http://h/a","path":""# + padding + #""}"#,
      #"{"url":"http://h/b"}"#,
    ])
    let error = try #require(ManifestFixture.validationError(manifest))
    #expect(error.line == 3)
    #expect(error.reason.contains("longer than 1 MiB"))
  }

  @Test func line_of_exactly_one_mebibyte_is_accepted() throws {
    let fixture = ManifestFixture()
    let prefix = #"{"url":"http://h/a","path":""#
    let suffix = #""}"#
    let name = String(repeating: "n", count: (1 << 20) - prefix.utf8.count - suffix.utf8.count)
    let line = prefix + name + suffix
    #expect(line.utf8.count == 1 << 20)
    let statistics = try fixture.manifest(bytes: Array((line + "\r\n").utf8)).validate()
    #expect(statistics.entries == 1)
    let tooLong = fixture.manifest(bytes: Array((line + "x\r\n").utf8))
    #expect(ManifestFixture.validationError(tooLong)?.line == 1)
  }

  @Test func too_long_last_line_without_newline() throws {
    let fixture = ManifestFixture()
    let bytes = Array("http://h/a\n".utf8) + [UInt8](repeating: 0x20, count: (1 << 20) + 1)
    let error = try #require(ManifestFixture.validationError(fixture.manifest(bytes: bytes)))
    #expect(error.line == 2)
    #expect(error.reason.contains("longer than 1 MiB"))
  }

  @Test func uploads_need_an_existing_regular_file() throws {
    let fixture = ManifestFixture()
    fixture.createFile("up/present.bin")
    let cases: [(String, String)] = [
      (#"{"url":"http://h/u","op":"upload"}"#, #"an upload needs "path""#),
      (
        #"{"url":"http://h/u","op":"upload","path":"up/missing.bin"}"#,
        #"upload file "up/missing.bin" does not exist"#
      ),
      (
        #"{"url":"http://h/u","op":"upload","path":"up"}"#,
        #"upload file "up" is not a regular file"#
      ),
      (#"{"url":"http://h/u","op":"upload","path":"up/present.bin/x"}"#, "does not exist"),
    ]
    for (line, reason) in cases {
      let manifest = fixture.manifest(lines: [#"{"url":"http://h/ok"}"#, line])
      let error = try #require(ManifestFixture.validationError(manifest))
      #expect(error.line == 2)
      #expect(error.reason.contains(reason), "\(error)")
    }
  }

  @Test func upload_may_be_a_symlink_to_a_regular_file() throws {
    let fixture = ManifestFixture()
    fixture.createFile("real.bin")
    #expect(symlink(fixture.directory + "/real.bin", fixture.directory + "/link.bin") == 0)
    #expect(symlink(fixture.directory + "/nowhere", fixture.directory + "/dangling.bin") == 0)
    let good = fixture.manifest(lines: [#"{"url":"http://h/u","op":"upload","path":"link.bin"}"#])
    #expect(try good.validate().entries == 1)
    let dangling = fixture.manifest(lines: [
      #"{"url":"http://h/u","op":"upload","path":"dangling.bin"}"#
    ])
    #expect(ManifestFixture.validationError(dangling)?.reason.contains("does not exist") == true)
  }

  /// docs/behaviour.md, "Paths": the check looks through the output directory's descriptor
  /// and never follows a link out of it; such an upload is no manifest error, the run fails
  /// it with `path_refused`.
  @Test func an_upload_symlink_leading_out_is_left_to_the_run() throws {
    let fixture = ManifestFixture()
    #expect(symlink("../elsewhere/secret.bin", fixture.directory + "/out.bin") == 0)
    let manifest = fixture.manifest(lines: [
      #"{"url":"http://h/u","op":"upload","path":"out.bin"}"#
    ])
    #expect(try manifest.validate().entries == 1)
  }

  @Test func upload_destination_is_its_url() throws {
    let fixture = ManifestFixture()
    fixture.createFile("a.bin")
    fixture.createFile("b.bin")
    let put = fixture.manifest(lines: [
      #"{"url":"http://h/a.bin"}"#,
      #"{"url":"http://H:80/put/x","op":"upload","path":"a.bin"}"#,
      #"{"url":"HTTP://h/put/x","op":"upload","path":"b.bin","method":"PUT"}"#,
    ])
    let error = try #require(ManifestFixture.validationError(put))
    #expect(error.line == 3)
    #expect(error.reason == "same destination as line 2")

    // One POST endpoint takes many files; the same file twice is the duplicate.
    let post = fixture.manifest(lines: [
      #"{"url":"http://h/post","op":"upload","path":"a.bin","method":"POST"}"#,
      #"{"url":"http://h/post","op":"upload","path":"b.bin","method":"POST"}"#,
      #"{"url":"http://h/post","op":"upload","path":"./a.bin","method":"POST"}"#,
    ])
    #expect(ManifestFixture.validationError(post)?.line == 3)

    // A download to a.bin and an upload from a.bin do not clash; nor PUT and POST.
    let mixed = fixture.manifest(lines: [
      #"{"url":"http://h/a.bin"}"#,
      #"{"url":"http://h/a.bin","op":"upload","path":"a.bin"}"#,
      #"{"url":"http://h/a.bin","op":"upload","path":"a.bin","method":"POST"}"#,
    ])
    #expect(try mixed.validate().entries == 3)
  }

  @Test func missing_manifest_is_an_error_without_line() throws {
    let manifest = Manifest(
      path: "/nonexistent/haul/m.jsonl", displayName: "m.jsonl", outputDirectory: ".")
    let error = try #require(ManifestFixture.validationError(manifest))
    #expect(error.line == 0)
    #expect(error.description.hasPrefix("m.jsonl: cannot open"))
  }

  @Test func directory_as_manifest_is_a_read_error() throws {
    let fixture = ManifestFixture()
    let manifest = Manifest(path: fixture.directory, displayName: "dir", outputDirectory: ".")
    let error = try #require(ManifestFixture.validationError(manifest))
    #expect(error.line == 0)
    #expect(error.reason.contains("cannot read"))
  }

  @Test func first_bad_line_wins() throws {
    let fixture = ManifestFixture()
    let manifest = fixture.manifest(lines: [
      #"{"url":"http://h/a"}"#, #"{"url":1}"#, #"{"url":"ftp://x"}"#,
    ])
    #expect(ManifestFixture.validationError(manifest)?.line == 2)
  }
}
