import Foundation
import Testing

@testable import HaulCurl

/// Which loop carries an https origin: the first to ask claims it, every other is sent
/// there, until a connection says HTTP/1.1; plain http is never routed.
@Suite("CurlRoutes: one loop per https origin until it is known to speak HTTP/1.1")
struct CurlRoutesTests {
  let routes = CurlRoutes(mailboxes: [])

  @Test func the_first_loop_to_ask_carries_an_origin_and_the_others_are_sent_there() {
    #expect(routes.owner(of: "example.org:443") == nil)
    #expect(routes.loop(for: "example.org:443", claimant: 1) == 1)
    #expect(routes.loop(for: "example.org:443", claimant: 0) == 1)
    #expect(routes.owner(of: "example.org:443") == 1)
    // Another origin is claimed on its own.
    #expect(routes.loop(for: "example.org:8443", claimant: 0) == 0)
  }

  @Test func an_origin_that_spoke_http_1_1_may_run_on_any_loop() {
    _ = routes.loop(for: "example.org:443", claimant: 1)
    routes.spread("example.org:443")
    #expect(routes.loop(for: "example.org:443", claimant: 0) == nil)
    #expect(routes.owner(of: "example.org:443") == nil)
  }

  @Test func only_https_origins_are_routed_by_host_and_port() throws {
    let https = try #require(URL(string: "https://Example.ORG/a/b?c"))
    let port = try #require(URL(string: "https://example.org:8443/a"))
    let http = try #require(URL(string: "http://example.org/a"))
    #expect(CurlRoutes.origin(of: https) == "example.org:443")
    #expect(CurlRoutes.origin(of: port) == "example.org:8443")
    #expect(CurlRoutes.origin(of: http) == nil)
    let upper = try #require(URL(string: "HTTPS://example.org/a"))
    #expect(CurlRoutes.origin(of: upper) == "example.org:443")
    #expect(CurlRoutes.isHTTPS("hTtPs") && !CurlRoutes.isHTTPS("http") && !CurlRoutes.isHTTPS(nil))
    #expect(!CurlRoutes.isHTTPS("httpsx") && !CurlRoutes.isHTTPS("wss"))
  }

  @Test func an_exchange_handed_over_is_cancelled_only_by_a_cancel_its_first_loop_missed() {
    // The arriving loop carried out a cancel of the jobs the sending one had not yet.
    #expect(CurlRoutes.cancelsOnArrival(mark: 0, carried: 1))
    // Both carried out the same: the exchange starts.
    #expect(!CurlRoutes.cancelsOnArrival(mark: 1, carried: 1))
    // The arriving loop lags: the cancel it has still to carry out was before the step.
    #expect(!CurlRoutes.cancelsOnArrival(mark: 2, carried: 1))
  }
}
