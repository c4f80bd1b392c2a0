import Foundation
import HaulTestSupport
import Testing

@testable import HaulCore

/// One good manifest line and the entry it must give (as line 1).
struct GoodLineCase: Sendable, CustomTestStringConvertible {
  var name: String
  var line: String
  var expected: ManifestEntry
  var testDescription: String { name }

  init(
    _ name: String, _ line: String, _ operation: ManifestEntry.Operation = .download,
    url: String, mirrors: [String] = [], path: String, method: String? = nil,
    size: Int64? = nil, sha256: String? = nil, headers: [HTTPField] = [],
    digests: DigestValues = DigestValues()
  ) {
    self.name = name
    self.line = line
    expected = ManifestEntry(
      line: 1, text: line, operation: operation, url: URL(string: url)!,
      mirrors: mirrors.map { URL(string: $0)! }, path: path, method: method, size: size,
      sha256: sha256, headers: headers, manifestDigests: digests)
  }
}

@Suite struct ManifestEntryTests {
  static let digest = "0123456789abcdef0123456789ABCDEF0123456789abcdef0123456789ABCDEF"

  static let cases: [GoodLineCase] = [
    GoodLineCase(
      "url only", #"{"url":"http://h/d/file.bin"}"#, url: "http://h/d/file.bin", path: "file.bin",
      method: "GET"),
    GoodLineCase(
      "every download field",
      #"{"url":"https://h/x","path":"./out//a/b.bin","size":1024,"sha256":""# + digest
        + #"","headers":{"X-Token":"s3cret","Accept":"*/*"},"mirrors":["http://m1/x","HTTPS://m2:8443/x"]}"#,
      url: "https://h/x", mirrors: ["http://m1/x", "https://m2:8443/x"], path: "out/a/b.bin",
      size: 1024, sha256: digest.lowercased(),
      headers: [HTTPField("X-Token", "s3cret"), HTTPField("Accept", "*/*")]),
    GoodLineCase(
      "fields in any order, white space between tokens",
      #"{ "size" : 1.024e3 , "op" : "download" , "url" : "http://h/a.txt" }"#,
      url: "http://h/a.txt", path: "a.txt", size: 1024),
    GoodLineCase(
      "bare URL, percent-decoded name", "http://h/dir/f%20x.bin", url: "http://h/dir/f%20x.bin",
      path: "f x.bin"),
    GoodLineCase(
      "bare URL with spaces around it", "  https://h/a.txt\t", url: "https://h/a.txt",
      path: "a.txt"),
    GoodLineCase(
      "bare URL with upper-case scheme (made lower case) and a query", "HTTPS://h/get?id=1&x=%2F",
      url: "https://h/get?id=1&x=%2F", path: "get"),
    GoodLineCase(
      "non-ASCII name from an encoded URL", #"{"url":"http://h/caf%C3%A9.txt"}"#,
      url: "http://h/caf%C3%A9.txt", path: "café.txt"),
    GoodLineCase(
      "escapes in strings",
      #"{"url":"http:\/\/h\/a","path":"caf\u00e9\/\ud83d\ude00 \"q\" \\.txt"}"#, url: "http://h/a",
      path: #"café/😀 "q" \.txt"#),
    GoodLineCase(
      "keys spelled with escapes", #"{"\u0075rl":"http://h/a","p\u0061th":"b"}"#,
      url: "http://h/a", path: "b"),
    GoodLineCase(
      "white space around the object", " {\"url\":\"http://h/a\"} \t", url: "http://h/a",
      path: "a"),
    GoodLineCase(
      "host with user info and port", #"{"url":"http://u:p@h:8080/a"}"#, url: "http://u:p@h:8080/a",
      path: "a"),
    GoodLineCase(
      "IP address, port and a typical path",
      #"{"url": "http://127.0.0.1:35665/small/small-00000.bin", "path": "small-00000.bin", "size": 16384}"#,
      url: "http://127.0.0.1:35665/small/small-00000.bin", path: "small-00000.bin", size: 16384),
    GoodLineCase(
      "sha256 already in lower case",
      #"{"url":"http://h/a","sha256":""# + digest.lowercased() + #""}"#, url: "http://h/a",
      path: "a", sha256: digest.lowercased()),
    GoodLineCase(
      "every digest, either case, kept in lower case",
      #"{"url":"http://h/a","md5":""# + String(repeating: "AB", count: 16) + #"","sha1":""#
        + String(repeating: "c", count: 40) + #"","sha512":""# + String(repeating: "0F", count: 64)
        + #"","sha256":""# + digest + #""}"#,
      url: "http://h/a", path: "a", sha256: digest.lowercased(),
      digests: [
        .sha512: String(repeating: "0f", count: 64), .sha1: String(repeating: "c", count: 40),
        .md5: String(repeating: "ab", count: 16),
      ]),
    GoodLineCase(
      "sha512 alone",
      #"{"url":"http://h/a","sha512":""# + String(repeating: "e", count: 128) + #""}"#,
      url: "http://h/a", path: "a", digests: [.sha512: String(repeating: "e", count: 128)]),
    GoodLineCase(
      "raw UTF-8 in strings", #"{"url":"http://h/a","path":"données/日本.bin"}"#,
      url: "http://h/a", path: "données/日本.bin"),
    GoodLineCase(
      "size zero", #"{"url":"http://h/a","size":0}"#, url: "http://h/a", path: "a", size: 0),
    GoodLineCase(
      "size minus zero", #"{"url":"http://h/a","size":-0}"#, url: "http://h/a", path: "a",
      size: 0),
    GoodLineCase(
      "size written with a zero fraction", #"{"url":"http://h/a","size":2048.000}"#,
      url: "http://h/a", path: "a", size: 2048),
    GoodLineCase(
      "largest size", #"{"url":"http://h/a","size":9223372036854775807}"#, url: "http://h/a",
      path: "a", size: .max),
    GoodLineCase(
      "largest size with an exponent", #"{"url":"http://h/a","size":92233720368547758.07e2}"#,
      url: "http://h/a", path: "a", size: .max),
    GoodLineCase(
      "header value with a tab and token punctuation",
      #"{"url":"http://h/a","headers":{"X-Odd!#$%&'*+.^_`|~":"a\tb"}}"#, url: "http://h/a",
      path: "a", headers: [HTTPField("X-Odd!#$%&'*+.^_`|~", "a\tb")]),
    GoodLineCase(
      "empty headers and mirrors", #"{"url":"http://h/a","headers":{},"mirrors":[]}"#,
      url: "http://h/a", path: "a"),
    GoodLineCase(
      "upload, PUT by default", #"{"url":"http://h/put/u","op":"upload","path":"up/u.bin"}"#,
      .upload, url: "http://h/put/u", path: "up/u.bin", method: "PUT"),
    GoodLineCase(
      "upload by POST with size",
      #"{"op":"upload","method":"POST","path":"up//v.bin","url":"https://h/post","size":7}"#,
      .upload, url: "https://h/post", path: "up/v.bin", method: "POST", size: 7),
  ]

  @Test(arguments: cases)
  func parses_good_line(_ testCase: GoodLineCase) throws {
    let fixture = ManifestFixture()
    fixture.createFile("up/u.bin")
    fixture.createFile("up/v.bin")
    let manifest = fixture.manifest(lines: [testCase.line])
    let statistics = try manifest.validate()
    #expect(statistics.entries == 1)
    let entries = Array(manifest.entries())
    #expect(entries == [testCase.expected])
    #expect(entries.first?.text == testCase.line)
  }

  /// Validation skips building URLs that `ManifestURL.isPlain` accepts, so every such URL
  /// must be one that `ManifestURL.parse` accepts as it is, host and all; and `parse`
  /// itself skips asking for the host when the authority plainly has one.
  @Test func plain_urls_always_parse() throws {
    // Mostly good parts, so that many URLs are plain, and some bad ones.
    let schemes = ["http://", "https://", "http://", "https://", "HTTP://", "http:/", "ftp://", ""]
    let hosts = ["h", "127.0.0.1", "a-b.example", "h-", "9", "-h", ".", "h_x", "[::1]", "u@h", ""]
    let ports = ["", "", "", ":80", ":65535", ":65536", ":", ":123456", ":8a"]
    let goodPieces = [
      "/", "/", "a", "Z", "9", "-", ".", "_", "~", "!", "$", "&", "'", "(", ")", "*", "+", ",",
      ";", "=", ":", "@", "?", "%20", "%2F", "%c3%A9",
    ]
    let badPieces = ["%", "%2", "%zz", " ", "#", "[", "]", "é", "\\", "^", "|", "\"", "\u{7F}"]
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func next(_ count: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((state >> 33) % UInt64(count))
    }
    var plainCount = 0
    for _ in 0..<20_000 {
      var text = schemes[next(schemes.count)] + hosts[next(hosts.count)] + ports[next(ports.count)]
      if next(10) > 0 { text += "/" }
      for _ in 0..<next(8) {
        text +=
          next(20) == 0 ? badPieces[next(badPieces.count)] : goodPieces[next(goodPieces.count)]
      }
      // Whatever parse accepts has a host (it asks Foundation only when the host is not
      // plainly there).
      let parsed = ManifestURL.parse(text, field: "\"url\"")
      if case .success(let url) = parsed {
        #expect(url.host(percentEncoded: true)?.isEmpty == false, "\(text)")
      }
      guard ManifestURL.isPlain(text) else { continue }
      plainCount += 1
      let url = try parsed.get()
      #expect(url.absoluteString == text)
      // Validation names a bare plain URL's file from its bytes, without building the URL;
      // the name (or the reason there is none) is the one the URL's path gives.
      let named = ManifestPath.defaultName(percentEncodedPath: url.path(percentEncoded: true))
      #expect(ManifestURL.defaultNameOfPlain(text) == named, "\(text)")
    }
    #expect(plainCount > 1500)
    for text in ["http://h#f", "http://h x/", "http://[::1]/", "http://u@h/", "http://h:/"] {
      #expect(!ManifestURL.isPlain(text), "\(text)")
    }
    #expect(ManifestURL.isPlain("http://127.0.0.1:35665/small/small-00000.bin?a=%2F&b"))
  }

  @Test func sha256_reads_and_sets_the_lines_own_digest() throws {
    var entry = ManifestEntry(
      line: 1, text: "", url: URL(string: "http://h/a")!, path: "a",
      manifestDigests: [.md5: String(repeating: "0", count: 32)])
    #expect(entry.sha256 == nil)
    entry.sha256 = String(repeating: "1", count: 64)
    #expect(entry.manifestDigests[.sha256] == String(repeating: "1", count: 64))
    #expect(entry.expectedDigests.algorithms == [.sha256, .md5])
    #expect(entry.expectedDigestList.map(\.source) == ["manifest:sha256", "manifest:md5"])
  }

  @Test func each_algorithm_names_its_digest_source_as_the_report_writes_it() {
    for algorithm in DigestAlgorithm.allCases {
      #expect(algorithm.manifestSource == "manifest:" + algorithm.rawValue)
      #expect(algorithm.checksumsSource == "checksums:" + algorithm.rawValue)
    }
  }

  @Test func sources_are_the_url_then_the_mirrors() throws {
    let fixture = ManifestFixture()
    let manifest = fixture.manifest(lines: [
      #"{"url":"http://a/f","mirrors":["http://b/f","http://c/f"]}"#
    ])
    let entry = try #require(Array(manifest.entries()).first)
    #expect(entry.sources.map(\.absoluteString) == ["http://a/f", "http://b/f", "http://c/f"])
  }
}
