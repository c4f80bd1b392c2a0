import Foundation
import HaulCore
import Testing

@Suite("Cookies: RFC 6265's rules, the Netscape file")
struct CookieJarTests {
  let now: Int64 = 1_800_000_000

  func url(_ text: String) -> URL { URL(string: text)! }

  func jar(_ fields: [String], from source: String) -> CookieJar {
    var jar = CookieJar()
    jar.receive(
      ResponseHead(status: 302, headers: fields.map { HTTPField("Set-Cookie", $0) }),
      from: url(source), now: now)
    return jar
  }

  @Test func a_cookie_without_domain_is_host_only() {
    let jar = jar(["sid=1"], from: "https://data.example/a/b")
    #expect(jar.header(for: url("https://data.example/a/x"), now: now) == "sid=1")
    #expect(jar.header(for: url("https://sub.data.example/x"), now: now) == nil)
    #expect(jar.header(for: url("https://example/x"), now: now) == nil)
    #expect(jar.cookies.first?.hostOnly == true)
  }

  @Test func a_domain_cookie_goes_to_the_domain_and_its_subdomains_only() {
    let jar = jar(["d=1; Domain=.example.org; Path=/"], from: "http://www.example.org/")
    #expect(jar.header(for: url("http://example.org/"), now: now) == "d=1")
    #expect(jar.header(for: url("http://a.b.example.org/"), now: now) == "d=1")
    #expect(jar.header(for: url("http://badexample.org/"), now: now) == nil)
  }

  @Test func a_domain_cookie_of_the_host_itself_replaces_its_host_only_one_and_reaches_subdomains()
  {
    var jar = jar(["d=1"], from: "http://example.org/")
    jar.receive(
      ResponseHead(status: 200, headers: [HTTPField("Set-Cookie", "d=2; Domain=example.org")]),
      from: url("http://example.org/"), now: now)
    #expect(jar.cookies.count == 1)
    #expect(jar.header(for: url("http://www.example.org/"), now: now) == "d=2")
  }

  @Test func a_domain_the_host_does_not_match_or_a_bare_name_is_refused() {
    #expect(jar(["x=1; Domain=other.org"], from: "http://www.example.org/").cookies.isEmpty)
    #expect(jar(["x=1; Domain=org"], from: "http://www.example.org/").cookies.isEmpty)
    #expect(jar(["x=1; Domain=a.example.org"], from: "http://example.org/").cookies.isEmpty)
    // An IP address matches only itself.
    #expect(jar(["x=1; Domain=0.0.1"], from: "http://127.0.0.1/").cookies.isEmpty)
    #expect(jar(["x=1; Domain=127.0.0.1"], from: "http://127.0.0.1/").cookies.count == 1)
  }

  @Test func ports_play_no_part() {
    let jar = jar(["p=1"], from: "http://127.0.0.1:8080/")
    #expect(jar.header(for: url("http://127.0.0.1:9090/"), now: now) == "p=1")
  }

  @Test func the_path_matches_as_rfc_6265_says() {
    #expect(Cookie.pathMatches("/docs", "/docs"))
    #expect(Cookie.pathMatches("/docs/web", "/docs"))
    #expect(Cookie.pathMatches("/docs/web", "/docs/"))
    #expect(!Cookie.pathMatches("/docsets", "/docs"))
    #expect(!Cookie.pathMatches("/", "/docs"))
    #expect(Cookie.defaultPath("/a/b/c") == "/a/b")
    #expect(Cookie.defaultPath("/a") == "/")
    #expect(Cookie.defaultPath("") == "/")
    let jar = jar(["a=1", "b=2; Path=/a", "c=3; Path=/"], from: "http://h.example/a/b/file")
    // Longest path first, then in the order set.
    #expect(jar.header(for: url("http://h.example/a/b/other"), now: now) == "a=1; b=2; c=3")
    #expect(jar.header(for: url("http://h.example/a"), now: now) == "b=2; c=3")
    #expect(jar.header(for: url("http://h.example/"), now: now) == "c=3")
  }

  @Test func a_secure_cookie_goes_over_https_only_and_is_not_set_over_http() {
    let jar = jar(["s=1; Secure"], from: "https://h.example/")
    #expect(jar.header(for: url("https://h.example/"), now: now) == "s=1")
    #expect(jar.header(for: url("http://h.example/"), now: now) == nil)
    #expect(self.jar(["s=1; Secure"], from: "http://h.example/").cookies.isEmpty)
  }

  @Test func expiry_by_max_age_or_expires_and_max_age_wins() {
    var jar = jar(
      [
        "past=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT",
        "future=1; Expires=Wed, 21-Oct-2037 07:28:00 GMT",
        "aged=1; Max-Age=60; Expires=Wed, 21 Oct 2015 07:28:00 GMT",
        "gone=1; Max-Age=0",
      ], from: "http://h.example/")
    #expect(jar.cookies.map(\.name) == ["future", "aged"])
    #expect(jar.cookies[1].expires == now + 60)
    #expect(jar.header(for: url("http://h.example/"), now: now + 61) == "future=1")
    // A cookie set again already expired removes the stored one.
    jar.receive(
      ResponseHead(
        status: 200, headers: [HTTPField("Set-Cookie", "future=x; Max-Age=-1")]),
      from: url("http://h.example/"), now: now)
    #expect(jar.cookies.map(\.name) == ["aged"])
  }

  @Test func the_same_name_domain_and_path_replaces_in_place() {
    var jar = jar(["a=1", "b=2"], from: "http://h.example/")
    jar.receive(
      ResponseHead(status: 200, headers: [HTTPField("Set-Cookie", "a=3")]),
      from: url("http://h.example/"), now: now)
    #expect(jar.header(for: url("http://h.example/"), now: now) == "a=3; b=2")
  }

  @Test func malformed_set_cookie_values_are_ignored() {
    #expect(jar(["novalue", "=x", "; a=b"], from: "http://h.example/").cookies.isEmpty)
    let long = "big=" + String(repeating: "x", count: 5000)
    #expect(jar([long], from: "http://h.example/").cookies.isEmpty)
  }

  @Test func cookie_dates_read_the_forms_servers_send() {
    let expected: Int64 = 1_445_412_480
    for text in [
      "Wed, 21 Oct 2015 07:28:00 GMT", "Wednesday, 21-Oct-15 07:28:00 GMT",
      "Wed Oct 21 07:28:00 2015", "21 Oct 2015 07:28:00",
    ] {
      var one = CookieJar()
      one.receive(
        ResponseHead(status: 200, headers: [HTTPField("Set-Cookie", "a=1; Expires=\(text)")]),
        from: url("http://h.example/"), now: 0)
      #expect(one.cookies.first?.expires == expected, "\(text)")
    }
  }

  @Test func set_cookie_fields_joined_with_commas_split_at_cookies_not_dates() {
    #expect(
      Cookie.splitJoined("a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT; Path=/, b=2, c=3; Secure")
        == ["a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT; Path=/", "b=2", "c=3; Secure"])
    #expect(Cookie.splitJoined("a=1") == ["a=1"])
  }

  @Test func the_netscape_file_round_trips_with_http_only_and_session_cookies() {
    let cookies = [
      Cookie(name: "host", value: "v1", domain: "127.0.0.1", hostOnly: true, path: "/"),
      Cookie(
        name: "dom", value: "v 2", domain: "example.org", hostOnly: false, path: "/p",
        secure: true, httpOnly: true, expires: 2_000_000_000),
    ]
    let text = NetscapeCookieFile.text(cookies)
    #expect(text.hasPrefix("# Netscape HTTP Cookie File\n"))
    #expect(text.contains("127.0.0.1\tFALSE\t/\tFALSE\t0\thost\tv1\n"))
    #expect(text.contains("#HttpOnly_.example.org\tTRUE\t/p\tTRUE\t2000000000\tdom\tv 2\n"))
    #expect(NetscapeCookieFile.parse(text) == cookies)
  }

  @Test func curl_and_wget_files_read_and_other_lines_are_skipped() {
    let text = """
      # Netscape HTTP Cookie File
      # https://curl.se/docs/http-cookies.html

      .example.org\tTRUE\t/\tFALSE\t0\tsid\tabc
      #HttpOnly_host.example\tFALSE\t/x\tTRUE\t2000000000\tt\tv
      not a cookie line
      host.example\tFALSE\t/\tFALSE\t0\tempty
      127.0.0.1:34667\tFALSE\t/\tFALSE\t1796678447\tportal_session\tc38f
      """
    let cookies = NetscapeCookieFile.parse(text)
    #expect(cookies.map(\.name) == ["sid", "t", "empty", "portal_session"])
    #expect(cookies[3].domain == "127.0.0.1" && cookies[3].hostOnly)
    #expect(cookies[0].hostOnly == false && cookies[0].domain == "example.org")
    #expect(cookies[1].httpOnly && cookies[1].secure && cookies[1].path == "/x")
    #expect(cookies[2].value == "")
  }

  @Test func the_jar_file_is_written_atomically_with_mode_0600() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "haul-cookie-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("jar.txt").path
    let cookies = [Cookie(name: "a", value: "b", domain: "h.example", hostOnly: true)]
    try NetscapeCookieFile.write(cookies, to: path)
    try NetscapeCookieFile.write(cookies, to: path)
    let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
    #expect(mode == 0o600)
    #expect(try NetscapeCookieFile.read(path) == cookies)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["jar.txt"])
  }

  @Test func printing_a_cookie_shows_no_value() {
    let cookie = Cookie(name: "sid", value: "s3cret", domain: "h", hostOnly: true)
    #expect(!"\(cookie) \(String(reflecting: [cookie]))".contains("s3cret"))
  }
}
