import Foundation
import HaulCore
import HaulTestSupport
import Testing

@Suite("haul run: a local folder uploaded to nginx, file by file")
struct CLIFolderUploadTests {
  @Test(arguments: transports)
  func every_regular_file_below_the_folder_is_sent_and_no_link_leads_out(transport: String)
    async throws
  {
    let directory = try TemporaryDirectory(prefix: "haul-cli-folder-up")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      let out = directory.file("out")
      var sent: [String: String] = [:]
      for (index, path) in ["a.txt", "with space.bin", "sub/b#1.txt", "sub/deeper/c%.bin"]
        .enumerated()
      {
        let full = out + "/site/" + path
        try FileManager.default.createDirectory(
          atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        sent[path] = try TestContent.writeFile(
          at: full, seed: UInt64(index), count: Int64(1_000 + index * 70_000))
      }
      try TestContent.writeFile(at: out + "/outside.txt", seed: 9, count: 10)
      let away = directory.file("away")
      try FileManager.default.createDirectory(atPath: away, withIntermediateDirectories: true)
      try TestContent.writeFile(at: away + "/secret.txt", seed: 10, count: 10)
      try FileManager.default.createSymbolicLink(
        atPath: out + "/site/planted", withDestinationPath: away)
      try FileManager.default.createSymbolicLink(
        atPath: out + "/site/absolute", withDestinationPath: away + "/secret.txt")
      try FileManager.default.createSymbolicLink(
        atPath: out + "/site/leads-out", withDestinationPath: "../outside.txt")
      try FileManager.default.createSymbolicLink(
        atPath: out + "/site/sub/inside", withDestinationPath: "../a.txt")
      sent["sub/inside"] = sent["a.txt"]
      try FileManager.default.createSymbolicLink(
        atPath: out + "/site/sub/loop", withDestinationPath: "..")
      let remote = "/upload/\(transport)/site/"
      try writeManifest(
        [
          try manifestLine([
            "op": "upload", "path": "site/", "url": nginx.url(remote).absoluteString,
          ])
        ], in: directory)
      let result = try await HaulBinary.run(
        ["run", "manifest.jsonl", "-o", "out", "--transport", transport], in: directory)
      #expect(result.status == 0, "\(result.stderr)")
      #expect(
        result.stderr.contains("haul: \(sent.count) ok, 0 skipped, 0 failed"), "\(result.stderr)")
      for (path, sha) in sent {
        #expect(nginx.fileDigest("upload/\(transport)/site/" + path)?.sha256 == sha, "\(path)")
      }
      for left in ["leads-out", "absolute", "planted/secret.txt"] {
        #expect(nginx.fileDigest("upload/\(transport)/site/" + left) == nil, "\(left)")
      }
      let mkcols = nginx.accessLog().filter { $0.method == "MKCOL" }.map(\.uri).sorted()
      #expect(
        mkcols == [remote, remote + "sub/", remote + "sub/deeper/"].sorted(),
        "each collection made before its files, the top one included")
    }
  }

  @Test func a_folder_upload_needs_a_local_folder() async throws {
    let fixture = try TemporaryDirectory(prefix: "haul-cli-folder-up")
    defer { fixture.remove() }
    try writeManifest(
      [#"{"op": "upload", "path": "nothing/", "url": "http://127.0.0.1:9/x/"}"#], in: fixture)
    let result = try await HaulBinary.run(["run", "manifest.jsonl", "-o", "."], in: fixture)
    #expect(result.status == 2)
    #expect(result.stderr.contains(#"upload folder "nothing/" does not exist"#), "\(result.stderr)")
  }
}
