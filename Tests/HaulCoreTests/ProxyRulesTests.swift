import Foundation
import HaulCore
import Testing

@Suite("Proxy rules: which proxy each request goes through, as curl decides")
struct ProxyRulesTests {
  private func proxy(_ environment: [String: String], _ url: String) throws -> String? {
    try ProxyRules(environment: environment).proxy(for: URL(string: url)!)?.description
  }

  @Test func http_proxy_is_read_in_lower_case_only() throws {
    #expect(try proxy(["http_proxy": "p:3128"], "http://a.test/x") == "http://p:3128")
    #expect(try proxy(["HTTP_PROXY": "p:3128"], "http://a.test/x") == nil)
  }

  @Test func https_proxy_is_read_in_either_case_lower_first() throws {
    #expect(try proxy(["HTTPS_PROXY": "http://u:3128"], "https://a.test/") == "http://u:3128")
    #expect(
      try proxy(["HTTPS_PROXY": "http://u:1", "https_proxy": "http://l:2"], "https://a.test/")
        == "http://l:2")
    #expect(try proxy(["https_proxy": "http://l:2"], "http://a.test/") == nil)
  }

  @Test func all_proxy_serves_schemes_without_their_own_variable() throws {
    let environment = ["ALL_PROXY": "socks5h://s:1080", "http_proxy": "http://h:8080"]
    #expect(try proxy(environment, "https://a.test/") == "socks5h://s:1080")
    #expect(try proxy(environment, "http://a.test/") == "http://h:8080")
    #expect(
      try proxy(["all_proxy": "socks5h://s", "ALL_PROXY": "http://x:1"], "http://a/")
        == "socks5h://s:1080")
  }

  @Test func an_empty_variable_means_no_proxy_for_its_scheme() throws {
    #expect(try proxy(["http_proxy": "", "all_proxy": "http://x:1"], "http://a.test/") == nil)
  }

  @Test func no_proxy_matches_host_suffixes_on_label_boundaries() throws {
    let environment = ["http_proxy": "http://p:1", "no_proxy": "example.com, .internal.test"]
    #expect(try proxy(environment, "http://example.com/") == nil)
    #expect(try proxy(environment, "http://www.EXAMPLE.com./") == nil)
    #expect(try proxy(environment, "http://internal.test/") == nil)
    #expect(try proxy(environment, "http://a.internal.test:8080/") == nil)
    #expect(try proxy(environment, "http://badexample.com/") == "http://p:1")
  }

  @Test func no_proxy_matches_ip_literals_and_ranges_without_resolving() throws {
    let environment = [
      "http_proxy": "http://p:1", "NO_PROXY": "127.0.0.1,10.0.0.0/8,::1",
    ]
    #expect(try proxy(environment, "http://127.0.0.1:8080/") == nil)
    #expect(try proxy(environment, "http://10.9.8.7/") == nil)
    #expect(try proxy(environment, "http://[::1]:8080/") == nil)
    #expect(try proxy(environment, "http://127.0.0.2/") == "http://p:1")
    #expect(try proxy(environment, "http://localhost/") == "http://p:1")
  }

  @Test func no_proxy_star_bypasses_every_host() throws {
    #expect(try proxy(["http_proxy": "http://p:1", "no_proxy": "*"], "http://a.test/") == nil)
  }

  @Test func the_option_replaces_the_variables_but_keeps_no_proxy() throws {
    let environment = ["http_proxy": "http://env:1", "no_proxy": "direct.test"]
    let rules = try ProxyRules(proxy: "https://opt:8443", environment: environment)
    #expect(rules.proxy(for: URL(string: "http://a.test/")!)?.description == "https://opt:8443")
    #expect(rules.proxy(for: URL(string: "https://a.test/")!)?.description == "https://opt:8443")
    #expect(rules.proxy(for: URL(string: "http://direct.test/")!) == nil)
  }

  @Test func the_option_takes_only_http_https_and_socks5h() {
    #expect(throws: ProxyRulesError.self) {
      try ProxyRules(proxy: "socks4://p:1080", environment: [:])
    }
    #expect(throws: ProxyRulesError.self) { try ProxyRules(proxy: "ftp://p", environment: [:]) }
    #expect((try? ProxyRules(proxy: "socks5h://p", environment: [:])) != nil)
  }

  @Test func direct_rules_send_nothing_through_a_proxy() {
    #expect(ProxyRules.direct.proxy(for: URL(string: "https://a.test/")!) == nil)
  }

  @Test func credentials_stay_in_the_url_and_out_of_the_description_and_errors() throws {
    let server = try ProxyServer(parsing: "http://alice:s3cret@p.test:3128")
    #expect(server.description == "http://p.test:3128")
    #expect(server.url.contains("s3cret"))
    #expect(server.hasCredentials)
    do {
      _ = try ProxyRules(environment: ["https_proxy": "gopher://alice:s3cret@p.test"])
      Issue.record("a gopher proxy was accepted")
    } catch {
      #expect(error.message.hasPrefix("https_proxy"))
      #expect(!error.message.contains("s3cret"))
    }
  }

  @Test func default_ports_follow_the_proxy_kind() throws {
    #expect(try ProxyServer(parsing: "p").description == "http://p:80")
    #expect(try ProxyServer(parsing: "https://p").description == "https://p:443")
    #expect(try ProxyServer(parsing: "socks5h://p").description == "socks5h://p:1080")
  }
}
