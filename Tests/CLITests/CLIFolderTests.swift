import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// Folder entries against the test suite's nginx, whose `/listed/` is an `autoindex` (HTML)
/// and `/listed-json/` the same folder as `autoindex_format json`, and whose
/// `/listed/blocked/` answers 403.
@Suite("haul run --recursive against nginx autoindex: a generated tree mirrored")
struct CLIFolderTests {
  /// The generated tree below `listed/`: names with a space, %, #, ?, &, non-ASCII letters,
  /// nested and empty folders, and a folder nginx refuses to list.
  static let files: [String: Int] = [
    "plain.txt": 10, "with space.txt": 2_000, "100%.bin": 70_000, "hash#1": 1, "what?.txt": 5,
    "a&b.txt": 6, "\u{FC}n\u{EF}c\u{F6}d\u{E9} \u{65E5}\u{672C}.txt": 300,
    "sub/one.txt": 11, "sub/deeper/two.bin": 123_456, "sub/deeper/deepest/three.txt": 3,
    "blocked/never.txt": 4,
  ]

  static func makeTree(_ nginx: NginxFixture) throws -> [String: String] {
    var digests: [String: String] = [:]
    for (index, (path, size)) in files.sorted(by: { $0.key < $1.key }).enumerated() {
      digests[path] = try nginx.createFile("listed/" + path, size: Int64(size), seed: UInt64(index))
    }
    try FileManager.default.createDirectory(
      atPath: nginx.root + "/listed/empty", withIntermediateDirectories: true)
    // A link back to an ancestor: each of its levels is a new URL, so --depth bounds it.
    try FileManager.default.createSymbolicLink(
      atPath: nginx.root + "/listed/sub/deeper/up", withDestinationPath: "..")
    return digests
  }

  /// The files of `folder`, relative to it, with their SHA-256.
  static func tree(_ folder: String) -> [String: String] {
    var found: [String: String] = [:]
    let enumerator = FileManager.default.enumerator(atPath: folder)
    while let path = enumerator?.nextObject() as? String {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isDirectory),
        !isDirectory.boolValue, !path.hasPrefix(".haul")
      else { continue }
      found[path] = FileDigest(path: folder + "/" + path)?.sha256
    }
    return found
  }

  @Test(arguments: transports)
  func a_folder_is_mirrored_once_and_a_rerun_fetches_nothing(transport: String) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-folder")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      let digests = try Self.makeTree(nginx)
      try writeManifest(
        [
          nginx.url("/listed/").absoluteString,
          try manifestLine([
            "url": nginx.url("/listed-json/").absoluteString, "recursive": true, "path": "j/",
          ]),
        ], in: directory)
      let arguments = [
        "run", "manifest.jsonl", "-o", "out", "--transport", transport, "--recursive",
        "--depth", "3", "--report", "report.json", "--failed", "failed.jsonl",
      ]
      let first = try await HaulBinary.run(arguments, in: directory)
      #expect(first.status == 1, "the blocked folder fails: \(first.stderr)")
      var expected = digests.filter { !$0.key.hasPrefix("blocked/") }
      expected = expected.filter { !$0.key.hasPrefix("sub/deeper/deepest/") }
      // --depth 3: sub/deeper/up/ is the fourth level, as is deepest/.
      for (root, local) in [("listed", "out/listed"), ("json", "out/j")] {
        #expect(Self.tree(directory.file(local)) == expected, "\(root)")
      }
      #expect(!FileManager.default.fileExists(atPath: directory.file("out/listed/empty")))
      let report = try jsonFile(directory.file("report.json"))
      let transfers = try #require(report["transfers"] as? [[String: Any]])
      let failed = transfers.filter { $0["status"] as? String == "failed" }
      #expect(failed.count == 2, "one blocked folder per entry")
      #expect(failed.allSatisfy { ($0["path"] as? String)?.hasSuffix("blocked/") == true })
      #expect(
        failed.allSatisfy { ($0["error"] as? [String: Any])?["code"] as? String == "http_403" })
      #expect(transfers.count == expected.count * 2 + 2, "one transfer per file, none per folder")
      let json = transfers.filter { ($0["path"] as? String)?.hasPrefix("j/") == true }
      #expect(
        json.filter { $0["status"] as? String == "ok" }.allSatisfy {
          ($0["bytes"] as? Int) == Self.files[String(($0["path"] as! String).dropFirst(2))]
        })
      let failedLines = try String(contentsOfFile: directory.file("failed.jsonl"), encoding: .utf8)
      #expect(failedLines.split(separator: "\n").count == 2)
      #expect(failedLines.contains(#""recursive":true"#))
      #expect(failedLines.contains("/listed/blocked/"))

      // A rerun lists again and finds every file in place: no file is fetched twice.
      let fileGets = {
        nginx.accessLog().filter { $0.method == "GET" && !$0.uri.hasSuffix("/") }.count
      }
      let before = fileGets()
      let second = try await HaulBinary.run(arguments, in: directory)
      #expect(second.status == 1)
      #expect(
        second.stderr.contains("0 ok, \(expected.count * 2) skipped, 2 failed"), "\(second.stderr)")
      #expect(fileGets() == before)
    }
  }

  @Test(arguments: transports)
  func a_rerun_fetches_again_a_file_whose_listed_mtime_changed_and_skips_the_rest(
    transport: String
  ) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-folder")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      // Given a folder mirrored from nginx's JSON listing (exact sizes and mtimes)
      _ = try Self.makeTree(nginx)
      let line = try manifestLine([
        "url": nginx.url("/listed-json/sub/").absoluteString, "recursive": true, "path": "s/",
      ])
      try writeManifest([line], in: directory)
      let arguments = [
        "run", "manifest.jsonl", "-o", "out", "--transport", transport, "--depth", "1",
        "--report", "report.json",
      ]
      let first = try await HaulBinary.run(arguments, in: directory)
      #expect(first.status == 0, "\(first.stderr)")
      // When one.txt is replaced on the server by bytes of the same size and a later mtime
      let served = nginx.root + "/listed/sub/one.txt"
      let before = try FileManager.default.attributesOfItem(atPath: served)[.modificationDate]
      let changed = try nginx.createFile("listed/sub/one.txt", size: 11, seed: 99)
      let later = try #require(before as? Date).addingTimeInterval(3600)
      try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: served)
      let fileGets = {
        nginx.accessLog().filter { $0.method == "GET" && !$0.uri.hasSuffix("/") }.map(\.uri)
      }
      let gets = fileGets().count
      let second = try await HaulBinary.run(arguments, in: directory)
      // Then the rerun fetches it again, by the listing alone, and nothing else
      #expect(second.status == 0, "\(second.stderr)")
      #expect(second.stderr.contains("1 ok, 0 skipped, 0 failed"), "\(second.stderr)")
      #expect(fileGets().dropFirst(gets) == ["/listed-json/sub/one.txt"])
      #expect(FileDigest(path: directory.file("out/s/one.txt"))?.sha256 == changed)
      var status = stat()
      #expect(stat(directory.file("out/s/one.txt"), &status) == 0)
      #expect(status.st_mtim.tv_sec == Int(later.timeIntervalSince1970))
      // And a third run finds it current
      let third = try await HaulBinary.run(arguments, in: directory)
      #expect(third.stderr.contains("0 ok, 1 skipped, 0 failed"), "\(third.stderr)")
    }
  }

  @Test func include_and_exclude_select_files_by_their_path_below_the_folder() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-folder")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      let digests = try Self.makeTree(nginx)
      try writeManifest([nginx.url("/listed/sub/").absoluteString], in: directory)
      let result = try await HaulBinary.run(
        [
          "run", "manifest.jsonl", "-o", "out", "--recursive", "--include", "**/*.bin",
          "--include", "one.txt", "--exclude", "**/up/**",
        ], in: directory)
      #expect(result.status == 0, "\(result.stderr)")
      #expect(
        Self.tree(directory.file("out/sub")) == [
          "one.txt": digests["sub/one.txt"]!, "deeper/two.bin": digests["sub/deeper/two.bin"]!,
        ])
      let listings = nginx.accessLog().filter { $0.method == "GET" && $0.uri.hasSuffix("/") }
        .map(\.uri)
      #expect(Set(listings).count == listings.count, "each folder listed once: \(listings)")
      // deeper/up/ lists as sub/ does: it is seen as the link back it is and not followed.
      #expect(
        listings.sorted() == [
          "/listed/sub/", "/listed/sub/deeper/", "/listed/sub/deeper/deepest/",
          "/listed/sub/deeper/up/",
        ])
    }
  }

  @Test func a_folder_that_cannot_be_listed_fails_as_its_own_transfer() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-folder")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      _ = try Self.makeTree(nginx)
      try writeManifest(
        [
          try manifestLine(["url": nginx.url("/listed/missing/").absoluteString, "recursive": true]
          ),
          try manifestLine(["url": nginx.url("/listed/sub/").absoluteString, "recursive": true]),
        ], in: directory)
      let result = try await HaulBinary.run(
        ["run", "manifest.jsonl", "-o", "out", "--depth", "1"], in: directory)
      #expect(result.status == 1)
      #expect(result.stderr.contains("missing/ (line 1): http_404"), "\(result.stderr)")
      #expect(result.stderr.contains("1 ok, 0 skipped, 1 failed"), "\(result.stderr)")
      #expect(Self.tree(directory.file("out/sub")).keys.sorted() == ["one.txt"])
    }
  }

  @Test func bad_folder_options_are_usage_errors() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-folder")
    defer { directory.remove() }
    try writeManifest(["http://127.0.0.1:9/x/"], in: directory)
    for (option, message) in [
      (["--include", "[ab"], "--include '[ab': a [ is not closed"),
      (["--depth", "0"], "--depth"),
    ] {
      let result = try await HaulBinary.run(
        ["run", "manifest.jsonl", "--recursive"] + option, in: directory)
      #expect(result.status == 2)
      #expect(result.stderr.contains(message), "\(result.stderr)")
    }
  }
}
