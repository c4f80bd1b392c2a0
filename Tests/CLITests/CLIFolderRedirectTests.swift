import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// A web folder whose index pages link folders without the trailing `/`, as h2o's
/// `file.dirlisting` does: the fault server's `/h2o/<options>/` tree, whose folders answer
/// their URL without `/` with a 301 to exactly that URL plus `/`. Each unmarked name is asked
/// for its first byte; the redirect makes it a folder, a file's 206 gives its size and mtime.
@Suite("Folders linked without a trailing slash: the redirect to URL + / is a folder")
struct CLIFolderRedirectTests {
  static let size = 5_000
  static let files = ["a.bin", "sub/b.bin", "sub/deeper/c.bin", "with space/d e.bin"]

  @Test(arguments: transports)
  func the_whole_tree_is_mirrored_and_a_rerun_fetches_nothing(transport: String) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-folder-redirect")
    let server = try FaultServer.started()
    defer {
      server.stop()
      directory.remove()
    }
    try writeManifest(
      [
        try manifestLine([
          "url": server.url("/h2o/size=\(Self.size)/").absoluteString, "recursive": true,
          "path": "t/",
        ])
      ], in: directory)
    let arguments = [
      "run", "manifest.jsonl", "-o", "out", "--transport", transport, "--report", "report.json",
    ]

    let first = try await HaulBinary.run(arguments, in: directory)

    #expect(first.status == 0, "\(first.stderr)")
    var found: Set<String> = []
    let out = directory.file("out/t")
    let walk = try #require(FileManager.default.enumerator(atPath: out))
    for case let path as String in walk {
      var isFolder: ObjCBool = false
      if FileManager.default.fileExists(atPath: out + "/" + path, isDirectory: &isFolder),
        !isFolder.boolValue
      {
        found.insert(path)
      }
    }
    #expect(found == Set(Self.files), "no folder lands as a file holding its page")
    for path in Self.files {
      let name = String(path.split(separator: "/").last!)
      #expect(
        FileDigest(path: out + "/" + path)?.sha256
          == TestContent.sha256(seed: TestContent.seed(for: name), count: Int64(Self.size)),
        "\(path)")
    }
    let firstRun = server.requests(pathPrefix: "/h2o/")
    let folders = ["sub", "sub/deeper", "with%20space"].map { "/h2o/size=\(Self.size)/" + $0 }
    let folderAsks = firstRun.filter { folders.contains($0.path) }
    #expect(folderAsks.count == 3, "each unmarked folder asked once: \(folderAsks)")
    #expect(
      folderAsks.allSatisfy { $0.status == 301 && $0.headers.value(for: "Range") == "bytes=0-0" },
      "and never fetched as a file")
    let whole = firstRun.filter {
      $0.path.hasSuffix(".bin") && $0.headers.value(for: "Range") == nil
    }
    #expect(whole.count == 4, "each file fetched once: \(whole)")

    // The probes gave each file's exact size and mtime: a rerun skips them all unfetched.
    let second = try await HaulBinary.run(arguments, in: directory)
    #expect(second.status == 0, "\(second.stderr)")
    let transfers = try #require(
      try jsonFile(directory.file("report.json"))["transfers"] as? [[String: Any]])
    #expect(transfers.count == 4)
    #expect(transfers.allSatisfy { $0["status"] as? String == "skipped" }, "\(transfers)")
    let rerun = server.requests(pathPrefix: "/h2o/").dropFirst(firstRun.count)
    #expect(
      !rerun.contains { $0.path.hasSuffix(".bin") && $0.headers.value(for: "Range") == nil },
      "only the probes: \(rerun)")
  }
}
