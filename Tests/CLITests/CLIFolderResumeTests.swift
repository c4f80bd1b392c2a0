import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// A listed file's partial is resumed only while the listing gives the ETag it gave when the
/// partial began. The fault server's `/dav/<options>/` folder lists `file.bin` over
/// `PROPFIND` with an ETag; its file's answers keep one `ETag` and `Last-Modified` for both
/// versions (`keepValidator`), so only the listing can tell that the file changed.
@Suite("A listed ETag guards the resume of a listed file")
struct CLIFolderResumeTests {
  let directory: TemporaryDirectory
  let server: FaultServer
  static let size: Int64 = 300_000
  static let seed: UInt64 = 41

  init() throws {
    directory = try TemporaryDirectory(prefix: "haul-cli-folder-resume")
    server = try FaultServer.started()
  }

  func cleanUp() {
    server.stop()
    directory.remove()
  }

  /// Runs the folder `/dav/<options>/` twice: the first run is cut after 100,000 bytes of
  /// the file and gives up (`--retries 0`), leaving a partial; from the second request on
  /// the server has another version of the file.
  func runTwice(_ transport: String, listing: [String: String]) async throws -> (
    second: HaulResult, gets: [RequestRecord]
  ) {
    var options = [
      "size": "\(Self.size)", "seed": "\(Self.seed)", "drop": "100000", "times": "1",
      "changeAfter": "1", "keepValidator": "1",
    ]
    options.merge(listing) { $1 }
    let folder = options.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
      .joined(separator: "&")
    try writeManifest(
      [
        try manifestLine([
          "url": server.url("/dav/\(folder)/").absoluteString, "recursive": true, "path": "t/",
        ])
      ], in: directory)
    let first = try await HaulBinary.run(
      runArguments(transport, ["--retries", "0"]), in: directory)
    #expect(first.status == 1, "the cut download fails: \(first.stderr)")
    #expect(fileSize(directory.file("out/t/file.bin.haul-partial")) == 100_000)
    let second = try await HaulBinary.run(runArguments(transport), in: directory)
    let gets = server.requests(pathPrefix: "/dav/").filter { $0.method == "GET" }
    return (second, gets)
  }

  @Test(arguments: transports)
  func a_partial_begun_under_another_listed_etag_starts_over(transport: String) async throws {
    defer { cleanUp() }
    // Given a listing whose ETag for the file changes between the runs
    let (second, gets) = try await runTwice(transport, listing: ["listedChangeAfter": "1"])
    // Then the second run fetches the new version whole instead of resuming the old prefix
    #expect(second.status == 0, "\(second.stderr)")
    #expect(gets.count == 2)
    #expect(gets.last?.value(for: "Range") == nil, "no resume across listed versions")
    let newSeed = FaultServer.changingSeed(Self.seed, hit: 1)
    #expect(holdsContent(directory.file("out/t/file.bin"), seed: newSeed, size: Self.size))
  }

  @Test(arguments: transports)
  func a_partial_whose_listed_etag_is_unchanged_is_resumed(transport: String) async throws {
    defer { cleanUp() }
    // Given a listing that gives the same ETag in both runs
    let (second, gets) = try await runTwice(transport, listing: [:])
    // Then the second run resumes the partial with a range (the server's validators
    // cannot tell the versions apart, so the file mixes them: what the listed ETag guards)
    #expect(second.status == 0, "\(second.stderr)")
    #expect(gets.count == 2)
    #expect(gets.last?.value(for: "Range") == "bytes=100000-")
    #expect(fileSize(directory.file("out/t/file.bin")) == Self.size)
  }
}
