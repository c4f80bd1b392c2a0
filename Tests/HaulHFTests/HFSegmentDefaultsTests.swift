import Foundation
import HaulCore
import Testing

@testable import HaulHF

/// Which downloads come down in ranges by default, and in how many.
@Suite struct HFSegmentDefaultsTests {
  let hub = HFEndpoint("http://127.0.0.1:8080/mirror/")!

  /// A stand-in for another server's default (an `--s3` endpoint's).
  struct Others: SegmentDefaults {
    func segments(for url: URL, size: Int64?) -> Int? { url.host == "s3.test" ? 5 : nil }
  }

  @Test func only_the_hubs_resolve_urls_are_its_files() throws {
    for text in [
      "http://127.0.0.1:8080/mirror/org/name/resolve/c0ffee/model.safetensors",
      "http://127.0.0.1:8080/mirror/datasets/org/data/resolve/main/a/b.parquet",
      "http://127.0.0.1:8080/mirror/spaces/org/app/resolve/refs%2Fpr%2F1/x",
    ] {
      #expect(hub.isResolveURL(try #require(URL(string: text))), "\(text)")
    }
    for text in [
      "http://127.0.0.1:8080/mirror/api/models/org/name/tree/main?recursive=true",
      "http://127.0.0.1:8080/mirror/org/name/blob/main/x",
      "http://127.0.0.1:8080/mirror/org/name/resolve/main/",
      "http://127.0.0.1:8080/mirror/datasets/org/resolve/main/x",
      "http://127.0.0.1:8080/other/org/name/resolve/main/x",
      "http://127.0.0.1:9090/mirror/org/name/resolve/main/x",
      "http://cdn.test/blobs/org/name/resolve/main/x",
    ] {
      #expect(!hub.isResolveURL(try #require(URL(string: text))), "\(text)")
    }
  }

  @Test func a_file_takes_sixteen_ranges_and_one_per_64_mib_above_1_gib_up_to_64() {
    #expect(HFEndpoint.defaultSegments(size: nil) == 16)
    #expect(HFEndpoint.defaultSegments(size: 9 << 20) == 16)
    #expect(HFEndpoint.defaultSegments(size: 512 << 20) == 16)
    #expect(HFEndpoint.defaultSegments(size: 1 << 30) == 16)
    #expect(HFEndpoint.defaultSegments(size: (1 << 30) + (64 << 20)) == 17)
    #expect(HFEndpoint.defaultSegments(size: 2 << 30) == 32)
    #expect(HFEndpoint.defaultSegments(size: 10 << 30) == 64)
  }

  @Test func the_hubs_files_go_in_its_ranges_and_every_other_url_as_before() throws {
    let defaults = HFSegmentDefaults(endpoint: hub, others: Others())
    let file = try #require(URL(string: hub.base + "/org/name/resolve/main/model.bin"))
    #expect(defaults.segments(for: file, size: 2 << 30) == 32)
    #expect(defaults.segments(for: file, size: nil) == 16)
    let object = try #require(URL(string: "http://s3.test/bucket/key"))
    #expect(defaults.segments(for: object, size: 2 << 30) == 5)
    let page = try #require(URL(string: "http://web.test/file.iso"))
    #expect(defaults.segments(for: page, size: 2 << 30) == nil)
    #expect(HFSegmentDefaults(endpoint: hub, others: nil).segments(for: object, size: 1) == nil)
  }

  @Test func the_hub_sets_its_ranges_only_when_the_run_gives_no_segments() throws {
    let file = try #require(URL(string: hub.base + "/org/name/resolve/main/model.bin"))
    var given = SchedulerOptions(segments: 1)
    given.addHuggingFace(endpoint: hub, token: nil)
    #expect(given.segmentDefaults == nil)
    var chosen = SchedulerOptions()
    chosen.segmentDefaults = Others()
    chosen.addHuggingFace(endpoint: hub, token: nil, segmentsByDefault: true)
    #expect(chosen.segmentDefaults?.segments(for: file, size: 1 << 30) == 16)
    let object = try #require(URL(string: "http://s3.test/bucket/key"))
    #expect(chosen.segmentDefaults?.segments(for: object, size: 1 << 30) == 5)
  }

  @Test func the_hubs_origin_takes_sixteen_transfers_only_when_the_run_gives_no_per_host()
    throws
  {
    let file = try #require(URL(string: hub.base + "/org/name/resolve/main/model.bin"))
    let api = try #require(URL(string: hub.base + "/api/models/org/name/tree/main"))
    let other = try #require(URL(string: "http://web.test/file.iso"))
    var given = SchedulerOptions(perHost: 4)
    given.addHuggingFace(endpoint: hub, token: nil)
    #expect(given.hostLimits == nil)
    var chosen = SchedulerOptions()
    chosen.addHuggingFace(endpoint: hub, token: nil, perHostByDefault: true)
    let limits = try #require(chosen.hostLimits)
    #expect(limits.perHost(for: file) == 16 && limits.perHost(for: api) == 16)
    #expect(limits.perHost(for: other) == nil)
    #expect(HFEndpoint.minimumSegments == HFHostLimits.perHost)
  }
}
