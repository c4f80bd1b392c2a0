import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// docs/behaviour.md, "Local files": a destination name of 255 bytes (Linux's limit)
/// downloads like any other, its side files fit the limit, and a killed run's partial is
/// found and resumed by the next.
@Suite("Long names: a 255-byte destination downloads and resumes")
struct LongNameTests {
  /// A 255-byte name of two-byte and one-byte characters.
  static let leaf = String(repeating: "é", count: 100) + String(repeating: "x", count: 50) + ".data"

  @Test(arguments: transports)
  func a_255_byte_name_downloads_and_a_killed_run_resumes_its_partial(transport: String)
    async throws
  {
    #expect(Self.leaf.utf8.count == 255)
    let directory = try TemporaryDirectory(prefix: "haul-long-name")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      // `/slow/` is served at 1 MB/s: the kill lands well before the body's end.
      let size: Int64 = 3 << 20
      let sha = try nginx.createFile("slow/long.bin", size: size, seed: 24)
      try writeManifest(
        [
          try manifestLine([
            "url": nginx.url("/slow/long.bin").absoluteString, "path": "d/" + Self.leaf,
            "size": size, "sha256": sha,
          ])
        ], in: directory)
      let folder = directory.file("out/d")
      let arguments = runArguments(transport, ["--retries", "0"])

      let running = try HaulBinary.start(arguments, in: directory)
      let resumable = await whenOffPool(
        {
          !running.isRunning
            || (Self.sideFile(in: folder, ".haul-state") != nil
              && Self.sideFile(in: folder, ".haul-partial").map { fileSize(folder + "/" + $0) }
                ?? 0 > 0)
        }, timeout: 20, then: { if running.isRunning { running.send(SIGKILL) } })
      let killed = try await running.finish(timeout: 20)
      #expect(resumable)
      #expect(killed.status == SIGKILL, "haul ended before it was killed: \(killed.stderr)")
      let partial = try #require(Self.sideFile(in: folder, ".haul-partial"))
      let kept = fileSize(folder + "/" + partial)
      #expect(kept > 0 && kept < size)
      #expect(!exists(folder + "/" + Self.leaf))
      let names = try FileManager.default.contentsOfDirectory(atPath: folder)
      #expect(names.allSatisfy { $0.utf8.count <= 255 }, "\(names)")

      let run = try FaultRun(
        try await HaulBinary.run(arguments, in: directory), reportIn: directory)
      #expect(run.result.status == 0, "\(run.result.stderr)")
      #expect(run.status(1) == "ok", "\(run.describe(1))")
      #expect(run.transfers[1]?["bytes"] as? Int == Int(size - kept))
      #expect(FileDigest(path: folder + "/" + Self.leaf)?.sha256 == sha)
      #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == [Self.leaf])
      let gets = nginx.accessLog(atLeast: 2).filter { $0.uri == "/slow/long.bin" }
      #expect(gets.map(\.status) == [200, 206], "\(gets)")
    }
  }

  @Test func a_256_byte_name_fails_path_refused_before_any_byte_and_leaves_nothing()
    async throws
  {
    let directory = try TemporaryDirectory(prefix: "haul-too-long-name")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      _ = try nginx.createFile("long.bin", size: 1000, seed: 3)
      let leaf = Self.leaf + "y"
      #expect(leaf.utf8.count == 256)
      try writeManifest(
        [try manifestLine(["url": nginx.url("/long.bin").absoluteString, "path": "d/" + leaf])],
        in: directory)
      let run = try FaultRun(
        try await HaulBinary.run(runArguments("curl", []), in: directory), reportIn: directory)
      #expect(run.result.status == 1, "\(run.result.stderr)")
      #expect(run.code(1) == "path_refused", "\(run.describe(1))")
      #expect(nginx.accessLog().isEmpty)
      #expect(!exists(directory.file("out/d")))
      // A second run finds nothing to resume and fails the same way.
      let again = try await HaulBinary.run(runArguments("curl", []), in: directory)
      #expect(again.status == 1)
      #expect(!exists(directory.file("out/d")))
    }
  }

  /// The name in `folder` that ends with `suffix`, if any.
  static func sideFile(in folder: String, _ suffix: String) -> String? {
    (try? FileManager.default.contentsOfDirectory(atPath: folder))?.first { $0.hasSuffix(suffix) }
  }
}
