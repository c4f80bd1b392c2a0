import Foundation
import HaulCore
import HaulTestSupport
import Testing

@Suite("haul run --refresh: conditional requests for files in place without size or sha256")
struct CLIRefreshTests {
  private let known: TimeInterval = 1_000_000_000

  /// What `--refresh` would send for `path` in `directory`: its recorded ETag and mtime.
  private func check(_ path: String, in directory: TemporaryDirectory) throws -> RefreshCheck? {
    let output = try OutputDirectory(path: directory.path)
    return try LocalDownload(directory: output, path: path, durable: false).refreshCheck()
  }

  private func setMtime(_ path: String, _ seconds: TimeInterval) throws {
    try FileManager.default.setAttributes(
      [.modificationDate: Date(timeIntervalSince1970: seconds)], ofItemAtPath: path)
  }

  private func transfer(_ directory: TemporaryDirectory, _ report: String) throws -> [String: Any] {
    let transfers = try #require(
      try jsonFile(directory.file(report))["transfers"] as? [[String: Any]])
    return try #require(transfers.first)
  }

  @Test(arguments: transports)
  func refresh_keeps_an_unchanged_file_and_replaces_a_changed_one(transport: String)
    async throws
  {
    let directory = try TemporaryDirectory(prefix: "haul-cli-refresh")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      try nginx.createFile("f.bin", size: 30_000, seed: 1)
      try setMtime(nginx.root + "/f.bin", known)
      try writeManifest(
        [try manifestLine(["url": nginx.url("/f.bin").absoluteString, "path": "f.bin"])],
        in: directory)
      let arguments = ["run", "manifest.jsonl", "--transport", transport, "-o", "."]

      // Given a file downloaded by a --refresh run, which records its ETag.
      let first = try await HaulBinary.run(arguments + ["--refresh"], in: directory)
      #expect(first.status == 0, "\(first.stderr)")
      let recorded = try #require(try check("f.bin", in: directory))
      #expect(recorded.etag?.hasPrefix("\"") == true)
      #expect(recorded.modified == Int(known))
      #expect(nginx.accessLog(atLeast: 1).count == 1)

      // When it is refreshed with nothing changed, the server answers 304 and nothing moves.
      let unchanged = try await HaulBinary.run(
        arguments + ["--refresh", "--report", "r2.json", "--events"], in: directory)
      #expect(unchanged.status == 0, "\(unchanged.stderr)")
      let kept = try transfer(directory, "r2.json")
      #expect(kept["status"] as? String == "skipped")
      #expect(kept["refresh"] as? String == "unchanged")
      #expect(kept["bytes"] as? Int == 0)
      // Progress events are sampled by time, so a slow machine may add one; the entry's end is
      // what this checks.
      let ended = try unchanged.events().filter {
        $0["line"] as? Int == 1 && ["done", "skipped", "failed"].contains($0["type"] as? String)
      }
      #expect(ended.count == 1)
      #expect(ended.first?["type"] as? String == "skipped")
      #expect(ended.first?["refresh"] as? String == "unchanged")
      let afterUnchanged = nginx.accessLog(atLeast: 2)
      #expect(afterUnchanged.count == 2)
      #expect(afterUnchanged.last?.status == 304)
      #expect(afterUnchanged.last?.bodyBytes == 0)
      #expect(
        FileDigest(path: directory.file("f.bin"))?.sha256 == nginx.fileDigest("f.bin")?.sha256)
      #expect(!FileManager.default.fileExists(atPath: directory.file("f.bin.haul-partial")))

      // When the server's file changes (new bytes, new mtime), the refresh fetches it.
      let digest = try nginx.createFile("f.bin", size: 20_000, seed: 2)
      try setMtime(nginx.root + "/f.bin", known + 3_600)
      let changed = try await HaulBinary.run(
        arguments + ["--refresh", "--report", "r3.json"], in: directory)
      #expect(changed.status == 0, "\(changed.stderr)")
      let replaced = try transfer(directory, "r3.json")
      #expect(replaced["status"] as? String == "ok")
      #expect(replaced["refresh"] as? String == "changed")
      #expect(replaced["bytes"] as? Int == 20_000)
      #expect(FileDigest(path: directory.file("f.bin"))?.sha256 == digest)
      #expect(nginx.accessLog(atLeast: 3).last?.status == 200)
      let updated = try #require(try check("f.bin", in: directory))
      #expect(updated.modified == Int(known) + 3_600)
      #expect(updated.etag != nil && updated.etag != recorded.etag)

      // Without --refresh, a rerun skips the file and sends nothing.
      let plain = try await HaulBinary.run(arguments + ["--report", "r4.json"], in: directory)
      #expect(plain.status == 0, "\(plain.stderr)")
      let skipped = try transfer(directory, "r4.json")
      #expect(skipped["status"] as? String == "skipped")
      #expect(skipped["refresh"] == nil)
      #expect(nginx.accessLog(atLeast: 4, timeout: 1).count == 3)
    }
  }

  @Test(arguments: transports)
  func a_file_without_a_recorded_etag_is_refreshed_by_its_mtime(transport: String) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-cli-refresh-date")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      try nginx.createFile("g.bin", size: 10_000, seed: 3)
      try setMtime(nginx.root + "/g.bin", known)
      try writeManifest(
        [try manifestLine(["url": nginx.url("/g.bin").absoluteString, "path": "g.bin"])],
        in: directory)
      let arguments = ["run", "manifest.jsonl", "--transport", transport, "-o", "."]

      // Given a file downloaded without --refresh: no ETag is recorded with it.
      let first = try await HaulBinary.run(arguments, in: directory)
      #expect(first.status == 0, "\(first.stderr)")
      #expect(try check("g.bin", in: directory)?.etag == nil)

      // When refreshed, If-Modified-Since alone gets the 304.
      let unchanged = try await HaulBinary.run(
        arguments + ["--refresh", "--report", "r2.json"], in: directory)
      #expect(unchanged.status == 0, "\(unchanged.stderr)")
      #expect(try transfer(directory, "r2.json")["refresh"] as? String == "unchanged")
      #expect(nginx.accessLog(atLeast: 2).last?.status == 304)

      // When the local copy's mtime no longer matches, the file is fetched again.
      try setMtime(directory.file("g.bin"), known - 60)
      let changed = try await HaulBinary.run(
        arguments + ["--refresh", "--report", "r3.json"], in: directory)
      #expect(changed.status == 0, "\(changed.stderr)")
      #expect(try transfer(directory, "r3.json")["refresh"] as? String == "changed")
      #expect(nginx.accessLog(atLeast: 3).last?.status == 200)
      #expect(try check("g.bin", in: directory)?.modified == Int(known))
    }
  }

  @Test(arguments: transports)
  func the_conditions_carry_the_recorded_etag_and_mtime_across_origins(transport: String)
    async throws
  {
    let directory = try TemporaryDirectory(prefix: "haul-cli-refresh-fields")
    defer { directory.remove() }
    let origin = try FaultServer.started()
    let elsewhere = try FaultServer.started(host: "127.0.0.2")
    defer {
      origin.stop()
      elsewhere.stop()
    }
    let target = elsewhere.dataURL("r", size: 5_000, seed: 4).absoluteString
    let url = origin.url("/hop?redirect=\(FaultServer.percentEncoded(target))")
    try writeManifest(
      [try manifestLine(["url": url.absoluteString, "path": "r.bin"])], in: directory)
    let arguments = [
      "run", "manifest.jsonl", "--transport", transport, "-o", ".", "--refresh",
    ]
    let first = try await HaulBinary.run(arguments, in: directory)
    #expect(first.status == 0, "\(first.stderr)")
    let recorded = try #require(try check("r.bin", in: directory))
    let etag = "\"\(String(FaultServer.changingSeed(4, hit: 0), radix: 16))-5000\""
    #expect(recorded.etag == etag)
    #expect(elsewhere.requests(pathPrefix: "/data/r").first?.value(for: "If-None-Match") == nil)

    // The fault server never answers 304: the refresh downloads again, asking with both fields.
    let second = try await HaulBinary.run(arguments + ["--report", "r2.json"], in: directory)
    #expect(second.status == 0, "\(second.stderr)")
    #expect(try transfer(directory, "r2.json")["refresh"] as? String == "changed")
    let asked = try #require(origin.requests(pathPrefix: "/hop").last)
    let followed = try #require(elsewhere.requests(pathPrefix: "/data/r").last)
    for request in [asked, followed] {
      #expect(request.value(for: "If-None-Match") == etag)
      #expect(request.value(for: "If-Modified-Since") == "Mon, 01 Jan 2024 00:00:00 GMT")
    }
  }
}
