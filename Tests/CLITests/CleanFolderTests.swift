import Foundation
import HaulTestSupport
import Testing

/// docs/behaviour.md, "Two runs, one folder": once a run ended, however it ended, its output
/// folder holds the user's files and the side files of unfinished entries, nothing else (no
/// `.haul/`); after `kill -9` what the killed run left goes with the next run on the folder.
@Suite("A run leaves its output folder clean")
struct CleanFolderTests {
  /// Every name below `folder`, relative to it, folders included, hidden ones too.
  static func names(_ folder: String) -> Set<String> {
    var found: Set<String> = []
    let enumerator = FileManager.default.enumerator(atPath: folder)
    while let path = enumerator?.nextObject() as? String { found.insert(path) }
    return found
  }

  /// `haul run MANIFEST -o out` through `transport`.
  func arguments(_ transport: String, _ manifest: String = "manifest.jsonl") -> [String] {
    ["run", manifest, "-o", "out", "--transport", transport, "-q"]
  }

  /// A manifest line for `path`, served by `nginx` at `uri`, with its size and SHA-256.
  func line(_ nginx: NginxFixture, _ uri: String, _ path: String, size: Int64, sha: String)
    throws -> String
  {
    try manifestLine([
      "url": nginx.url(uri).absoluteString, "path": path, "size": size, "sha256": sha,
    ])
  }

  @Test(arguments: transports)
  func a_run_that_succeeded_or_failed_leaves_only_its_files(transport: String) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-clean")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      var lines: [String] = []
      for (index, path) in ["a.bin", "b.bin", "sub/c.bin"].enumerated() {
        let sha = try nginx.createFile("clean/\(path)", size: 20_000, seed: UInt64(index))
        lines.append(try line(nginx, "/clean/\(path)", path, size: 20_000, sha: sha))
      }
      try writeManifest(lines, in: directory)
      let succeeded = try await HaulBinary.run(arguments(transport), in: directory, timeout: 60)
      #expect(succeeded.status == 0, "\(succeeded.stderr)")
      #expect(Self.names(directory.file("out")) == ["a.bin", "b.bin", "sub", "sub/c.bin"])

      // A run with a failed entry (a 404) in a fresh folder: the one file that arrived.
      let sha = try nginx.createFile("clean/d.bin", size: 20_000, seed: 9)
      try writeManifest(
        [
          try line(nginx, "/clean/d.bin", "d.bin", size: 20_000, sha: sha),
          try line(nginx, "/clean/missing.bin", "missing.bin", size: 20_000, sha: sha),
        ], named: "failing.jsonl", in: directory)
      let failing = ["run", "failing.jsonl", "-o", "failed", "--transport", transport, "-q"]
      let failed = try await HaulBinary.run(failing, in: directory, timeout: 60)
      #expect(failed.status == 1, "\(failed.stderr)")
      #expect(Self.names(directory.file("failed")) == ["d.bin"])
    }
  }

  @Test(arguments: transports, [SIGINT, SIGKILL])
  func an_interrupted_or_killed_run_leaves_only_files_and_partials_and_a_rerun_only_files(
    transport: String, signal: Int32
  ) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-clean-signal")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      // Three seconds at 1 MB/s: still running when the signal comes.
      let size: Int64 = 3 << 20
      let slowSHA = try nginx.createFile("slow/clean.bin", size: size, seed: 41)
      let quickSHA = try nginx.createFile("quick.bin", size: 20_000, seed: 42)
      try writeManifest(
        [
          try line(nginx, "/quick.bin", "quick.bin", size: 20_000, sha: quickSHA),
          try line(nginx, "/slow/clean.bin", "slow.bin", size: size, sha: slowSHA),
        ], in: directory)
      let partial = directory.file("out/slow.bin.haul-partial")
      let running = try HaulBinary.start(arguments(transport), in: directory)
      let (ready, _, ended) = try await running.interrupt(signal) { fileSize(partial) > 0 }
      #expect(ready, "the slow file never started")
      #expect(ended.status == (signal == SIGINT ? 130 : SIGKILL), "\(ended.stderr)")
      let left = Self.names(directory.file("out"))
      #expect(left.contains("slow.bin.haul-partial"), "\(left.sorted())")
      if signal == SIGINT {
        // The finished file, and the unfinished one's partial (and its resume state).
        let allowed: Set = ["quick.bin", "slow.bin.haul-partial", "slow.bin.haul-state"]
        #expect(left.isSubset(of: allowed), "\(left.sorted())")
      }

      let rerun = try await HaulBinary.run(arguments(transport), in: directory, timeout: 60)
      #expect(rerun.status == 0, "\(rerun.stderr)")
      #expect(Self.names(directory.file("out")) == ["quick.bin", "slow.bin"])
      #expect(FileDigest(path: directory.file("out/slow.bin"))?.sha256 == slowSHA)
    }
  }
}
