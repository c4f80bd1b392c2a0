import Foundation
import HaulCore
import HaulTestSupport
import Testing

@Suite("haul run against nginx: downloads get the server's Last-Modified as mtime")
struct CLIRemoteTimeTests {
  private let known: TimeInterval = 1_000_000_000

  private func mtime(_ path: String) throws -> TimeInterval {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return try #require(attributes[.modificationDate] as? Date).timeIntervalSince1970
  }

  @Test(arguments: transports)
  func a_download_gets_the_served_files_mtime_unless_no_remote_time(transport: String)
    async throws
  {
    let directory = try TemporaryDirectory(prefix: "haul-cli-remote-time")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      try nginx.createFile("f.bin", size: 30_000, seed: 1)
      try FileManager.default.setAttributes(
        [.modificationDate: Date(timeIntervalSince1970: known)], ofItemAtPath: nginx.root + "/f.bin"
      )
      try writeManifest(
        [try manifestLine(["url": nginx.url("/f.bin").absoluteString, "path": "f.bin"])],
        in: directory)
      let arguments = ["run", "manifest.jsonl", "--transport", transport]
      let first = try await HaulBinary.run(arguments + ["-o", "."], in: directory)
      #expect(first.status == 0, "\(first.stderr)")
      #expect(try mtime(directory.file("f.bin")) == known)

      try FileManager.default.createDirectory(
        atPath: directory.file("now"), withIntermediateDirectories: true)
      let second = try await HaulBinary.run(
        arguments + ["-o", "now", "--no-remote-time"], in: directory)
      #expect(second.status == 0, "\(second.stderr)")
      #expect(abs(try mtime(directory.file("now/f.bin")) - Date().timeIntervalSince1970) < 60)
    }
  }
}
