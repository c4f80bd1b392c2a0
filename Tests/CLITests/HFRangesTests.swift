import Foundation
import HaulTestSupport
import Testing

/// A large file of the Hub comes down in ranges by default, as `hf_transfer` and `aria2c -x16`
/// fetch one, and is checked whole; `--segments` still chooses (the storage host's log).
@Suite("hf:// large files in ranges by default", .serialized)
struct HFRangesTests {
  static let repository = "models/org/large"
  static let file = "model.safetensors"

  /// The storage host's `GET`s of the large file's blob: their `Range` headers (`-`: none).
  static func ranges(_ hub: HFHubFixture) throws -> [String] {
    let blob = try #require(FileManager.default.contents(atPath: hub.file(repository, file)))
    #expect(blob.count == 9 << 20)
    return hub.requests.filter { $0.hasPrefix("\(hub.storagePort) GET /blobs/") }.map {
      String($0.split(separator: " ").last ?? "")
    }
  }

  @Test(arguments: transports)
  func a_large_file_comes_in_sixteen_ranges_and_is_verified(transport: String) async throws {
    try await HFHubFixture.with { hub in try await sixteenRanges(hub, transport: transport) }
  }

  private func sixteenRanges(_ hub: HFHubFixture, transport: String) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-hf-ranges")
    defer { directory.remove() }
    let manifest = try writeManifest(["hf://org/large"], in: directory)
    let run = try await HaulBinary.run(
      ["run", manifest, "-o", "out", "--report", "report.json", "--transport", transport],
      in: directory, environment: HFHubTests.environment(hub, home: directory))
    #expect(run.status == 0, "\(run.stderr)")
    #expect(
      HFHubTests.same(
        directory.file("out/large/\(Self.file)"), hub, Self.repository, Self.file))
    let transfer = try #require(try HFHubTests.transfers(directory)["large/\(Self.file)"])
    #expect(transfer["status"] as? String == "ok", "\(transfer)")
    #expect((transfer["verified"] as? [String])?.contains("hf:lfs-sha256") == true, "\(transfer)")
    // The probe asks for byte 0; then sixteen ranges cover the file, each asked once.
    let ranges = try Self.ranges(hub).filter { $0 != "bytes=0-0" }
    #expect(ranges.count == 16, "\(ranges)")
    var covered: Int64 = 0
    for range in Set(ranges) {
      let bounds = range.dropFirst("bytes=".count).split(separator: "-").compactMap {
        Int64($0)
      }
      try #require(bounds.count == 2, "\(range)")
      covered += bounds[1] - bounds[0] + 1
    }
    #expect(Set(ranges).count == 16 && covered == 9 << 20, "\(ranges)")
  }

  @Test func segments_1_keeps_the_large_file_one_stream() async throws {
    try await HFHubFixture.with { hub in try await oneStream(hub) }
  }

  private func oneStream(_ hub: HFHubFixture) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-hf-one-stream")
    defer { directory.remove() }
    let manifest = try writeManifest(["hf://org/large/\(Self.file)"], in: directory)
    let run = try await HaulBinary.run(
      ["run", manifest, "-o", "out", "--segments", "1"],
      in: directory, environment: HFHubTests.environment(hub, home: directory))
    #expect(run.status == 0, "\(run.stderr)")
    #expect(HFHubTests.same(directory.file("out/\(Self.file)"), hub, Self.repository, Self.file))
    #expect(try Self.ranges(hub) == ["-"])
  }

  /// The most GETs of `org/cdn`'s file the storage host served at once.
  static func mostAtOnce(_ hub: HFHubFixture) -> Int {
    let log =
      (try? String(contentsOfFile: hub.directory.file("srv/storage-inflight.log"), encoding: .utf8))
      ?? ""
    return log.split(separator: "\n").compactMap { Int($0) }.max() ?? 0
  }

  /// The storage host serves `org/cdn` at 256 KiB/s a connection, as a CDN caps each: its
  /// 16 ranges of 576 KiB each take over two seconds, so all of them are in flight at once
  /// unless fewer may run.
  @Test(arguments: transports)
  func the_hubs_ranges_run_sixteen_at_once_unless_per_host_is_given(transport: String)
    async throws
  {
    for perHost in [nil, "8"] {
      try await HFHubFixture.with { hub in
        try await atOnce(hub, transport: transport, perHost: perHost)
      }
    }
  }

  private func atOnce(_ hub: HFHubFixture, transport: String, perHost: String?) async throws {
    let directory = try TemporaryDirectory(prefix: "haul-hf-at-once")
    defer { directory.remove() }
    let manifest = try writeManifest(["hf://org/cdn/\(Self.file)"], in: directory)
    let run = try await HaulBinary.run(
      ["run", manifest, "-o", "out", "--transport", transport, "-q"]
        + (perHost.map { ["--per-host", $0] } ?? []),
      in: directory, environment: HFHubTests.environment(hub, home: directory))
    #expect(run.status == 0, "\(run.stderr)")
    #expect(HFHubTests.same(directory.file("out/\(Self.file)"), hub, "models/org/cdn", Self.file))
    #expect(Self.mostAtOnce(hub) == (perHost == nil ? 16 : 8))
  }
}
