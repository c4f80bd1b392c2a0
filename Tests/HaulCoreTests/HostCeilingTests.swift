import Foundation
import Testing

@testable import HaulCore

/// A host with a ceiling of its own (`HostLimits`, a CDN's files): it takes that many
/// transfers at once, every other host `perHost`.
@Suite struct HostCeilingTests {
  @Test func a_host_with_its_own_ceiling_takes_that_many_and_the_others_per_host() {
    var state = AdmissionState<String>(limit: 16, perHost: 2)
    state.setCeiling(4, for: "cdn")
    #expect(
      (1...5).map { state.request(id: $0, host: "cdn", now: 0) } == [
        true, true, true, true, false,
      ])
    #expect((6...8).map { state.request(id: $0, host: "web", now: 0) } == [true, true, false])
    #expect(state.ceiling(for: "cdn") == 4 && state.ceiling(for: "web") == 2)
    #expect(state.release(host: "cdn", now: 0) == [5])
    _ = state.markMultiplexed(host: "cdn")
    #expect(state.ceiling(for: "cdn") == 4 * state.streamsPerConnection)
  }

  /// Gives the origin `http://cdn.test` 5 transfers, every other none of its own.
  struct CDN: HostLimits {
    func perHost(for url: URL) -> Int? { url.host == "cdn.test" ? 5 : nil }
  }

  @Test func the_run_asks_each_origin_once_for_its_ceiling() throws {
    let state = RunState(concurrency: 16, perHost: 2, retryAfterCap: 60, hostLimits: CDN())
    let cdn = state.hostID(of: URL(string: "http://cdn.test/a/resolve/main/f")!)
    let web = state.hostID(of: URL(string: "http://web.test/f")!)
    #expect(cdn != web)
    #expect(state.hostID(of: URL(string: "http://cdn.test/other")!) == cdn)
    #expect(state.ceiling(for: cdn) == 5)
    #expect(state.ceiling(for: web) == 2)
  }
}
