import Foundation
import HaulCore
import HaulTestSupport
import Testing

@Suite("haul run and verify against nginx: downloads, uploads, rerun, verify")
struct CLINginxTests {
  @Test(arguments: transports)
  func mixed_downloads_and_uploads_then_verify(transport: String) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-nginx")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      var lines: [String] = []
      for index in 0..<4 {
        let size = Int64(50_000 + index * 300_000)
        let sha = try nginx.createFile("files/d\(index).bin", size: size, seed: UInt64(index))
        lines.append(
          try manifestLine([
            "url": nginx.url("/files/d\(index).bin").absoluteString, "path": "d/d\(index).bin",
            "size": size, "sha256": sha,
          ]))
      }
      let out = directory.file("out")
      try FileManager.default.createDirectory(
        atPath: out + "/up", withIntermediateDirectories: true)
      var uploads: [String: String] = [:]
      for index in 0..<2 {
        let sha = try TestContent.writeFile(
          at: out + "/up/u\(index).bin", seed: UInt64(40 + index), count: 120_000)
        uploads["upload/\(transport)/u\(index).bin"] = sha
        lines.append(
          try manifestLine([
            "url": nginx.url("/upload/\(transport)/u\(index).bin").absoluteString,
            "path": "up/u\(index).bin", "op": "upload",
          ]))
      }
      try writeManifest(lines, in: directory)
      let arguments = ["run", "manifest.jsonl", "-o", "out", "--transport", transport]

      let first = try await HaulBinary.run(arguments + ["--report", "report.json"], in: directory)
      #expect(first.status == 0, "\(first.stderr)")
      #expect(first.stderr.contains("haul: 6 ok, 0 skipped, 0 failed"))
      for (path, sha) in uploads {
        #expect(nginx.fileDigest(path)?.sha256 == sha, "\(path)")
      }
      let transfers = try #require(
        try jsonFile(directory.file("report.json"))["transfers"] as? [[String: Any]])
      #expect(transfers.filter { $0["op"] as? String == "upload" }.count == 2)

      let verified = try await HaulBinary.run(
        ["verify", "manifest.jsonl", "-o", "out"], in: directory)
      #expect(verified.status == 0, "\(verified.stderr)")
      #expect(verified.stderr.contains("4 files checked: 4 ok, 0 bad (2 uploads not checked)"))

      // A rerun fetches no download again; uploads are always sent (docs/behaviour.md, "Skip").
      let gets = nginx.accessLog().filter { $0.method == "GET" }.count
      let second = try await HaulBinary.run(arguments + ["--events"], in: directory)
      #expect(second.status == 0, "\(second.stderr)")
      #expect(second.stderr.contains("haul: 2 ok, 4 skipped, 0 failed"))
      #expect(nginx.accessLog().filter { $0.method == "GET" }.count == gets)
      // Each upload's start event gives its file's size.
      let starts = try second.events().filter { $0["type"] as? String == "start" }
      #expect(starts.compactMap { $0["path"] as? String }.sorted() == ["up/u0.bin", "up/u1.bin"])
      #expect(starts.allSatisfy { $0["size"] as? Int == 120_000 })

      // verify finds what is wrong with each file, and sends no request.
      let requests = nginx.accessLog().count
      try FileManager.default.removeItem(atPath: out + "/d/d0.bin")
      try Data(count: 10).write(to: URL(fileURLWithPath: out + "/d/d1.bin"))
      let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: out + "/d/d2.bin"))
      try handle.seek(toOffset: 1000)
      handle.write(Data([0xFF, 0x00, 0xFF]))
      try handle.close()
      let broken = try await HaulBinary.run(
        ["verify", "manifest.jsonl", "-o", "out", "--failed", "refetch.txt"], in: directory)
      #expect(broken.status == 1)
      #expect(broken.stderr.contains("d/d0.bin: missing"))
      #expect(broken.stderr.contains("d/d1.bin: size 10 != expected 350000"))
      #expect(broken.stderr.contains("d/d2.bin: sha256 mismatch"))
      #expect(!broken.stderr.contains("d/d3.bin"))
      #expect(nginx.accessLog().count == requests)
      #expect(
        try String(contentsOfFile: directory.file("refetch.txt"), encoding: .utf8)
          == lines[0..<3].map { $0 + "\n" }.joined())

      // Running the refetch list repairs them.
      let repair = try await HaulBinary.run(
        ["run", "refetch.txt", "-o", "out", "--transport", transport], in: directory)
      #expect(repair.status == 0, "\(repair.stderr)")
      let again = try await HaulBinary.run(
        ["verify", "manifest.jsonl", "-o", "out"], in: directory)
      #expect(again.status == 0, "\(again.stderr)")
    }
  }
}
