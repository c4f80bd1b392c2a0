import Foundation
import Testing

@testable import HaulCurl

/// Which loop carries an https origin: the first to ask decides it while the others hold
/// their exchanges; a connection's answer then sends them to it (HTTP/2) or lets every loop
/// carry the origin (HTTP/1.1); plain http is never routed.
@Suite("CurlRoutes: one loop per HTTP/2 origin, every loop for HTTP/1.1")
struct CurlRoutesTests {
  let routes = CurlRoutes(mailboxes: [])
  let origin = "example.org:443"

  @Test func the_first_loop_to_ask_decides_an_origin_while_the_others_hold() {
    #expect(routes.owner(of: origin) == nil)
    #expect(routes.placement(of: origin, asking: 1) == .here)
    #expect(routes.placement(of: origin, asking: 1) == .here)
    #expect(routes.placement(of: origin, asking: 0) == .hold)
    #expect(routes.owner(of: origin) == 1)
    // Another origin is claimed on its own.
    #expect(routes.placement(of: "example.org:8443", asking: 0) == .here)
  }

  @Test func an_origin_that_spoke_http_2_is_carried_by_the_loop_that_decided_it() {
    _ = routes.placement(of: origin, asking: 1)
    routes.settle(origin, multiplexes: true)
    #expect(routes.placement(of: origin, asking: 0) == .handOver(1))
    #expect(routes.placement(of: origin, asking: 1) == .here)
    #expect(routes.owner(of: origin) == 1)
    // A later connection that does not multiplex spreads it.
    routes.settle(origin, multiplexes: false)
    #expect(routes.placement(of: origin, asking: 0) == .here)
  }

  @Test func an_origin_that_spoke_http_1_1_may_run_on_any_loop() {
    _ = routes.placement(of: origin, asking: 1)
    routes.settle(origin, multiplexes: false)
    #expect(routes.placement(of: origin, asking: 0) == .here)
    #expect(routes.owner(of: origin) == nil)
    // A settled origin stays settled.
    routes.settle(origin, multiplexes: true)
    #expect(routes.placement(of: origin, asking: 0) == .here)
  }

  @Test func a_deciding_loop_whose_exchange_ended_untold_lets_every_loop_carry_the_origin() {
    _ = routes.placement(of: origin, asking: 1)
    // Only the deciding loop can give the decision up.
    routes.abandon(origin, by: 0)
    #expect(routes.placement(of: origin, asking: 0) == .hold)
    routes.abandon(origin, by: 1)
    #expect(routes.placement(of: origin, asking: 0) == .here)
    #expect(routes.owner(of: origin) == nil)
  }

  @Test func an_exchange_that_cannot_tell_neither_decides_nor_waits() {
    // An upload goes over HTTP/1.1 whatever the server offers: it claims nothing.
    #expect(routes.placement(of: origin, asking: 0, decides: false) == .here)
    #expect(routes.owner(of: origin) == nil)
    _ = routes.placement(of: origin, asking: 1)
    #expect(routes.placement(of: origin, asking: 0, decides: false) == .here)
    // Over HTTP/2 it goes where the origin's connections are, as before.
    routes.settle(origin, multiplexes: true)
    #expect(routes.placement(of: origin, asking: 0, decides: false) == .handOver(1))
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
