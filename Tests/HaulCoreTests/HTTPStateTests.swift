import Foundation
import Testing

@testable import HaulCore

@Suite("Logins and cookies across the hops of one exchange")
struct HTTPStateTests {
  func answer(_ status: Int, _ fields: [(String, String)]) -> TransferResponse {
    TransferResponse(
      head: ResponseHead(status: status, headers: fields.map { HTTPField($0.0, $0.1) }),
      bodyBytes: 0)
  }

  func state(_ netrc: String, cookies: [Cookie]? = []) throws -> HTTPState {
    HTTPState(netrc: try Netrc(parsing: netrc), cookies: cookies)
  }

  @Test func a_login_portal_gets_the_login_and_the_data_host_only_its_cookie() throws {
    // Given the Earthdata pattern: data host → login host → data host's callback → data.
    let state = try state("machine login.example login alice password s3cret\n")
    let basic = Netrc.Login(login: "alice", password: "s3cret").basicAuthorization
    var walk = RedirectWalk(
      TransferRequest(url: URL(string: "https://data.example/file")!), state: state)
    #expect(walk.hop.headers.value(for: "Authorization") == nil)
    #expect(walk.hop.readsCookies)

    #expect(
      try walk.follow(
        after: answer(302, [("Location", "https://login.example/authorize?client=x")])))
    #expect(walk.hop.headers.value(for: "Authorization") == basic)

    #expect(
      try walk.follow(
        after: answer(
          302,
          [
            ("Location", "https://data.example/callback?code=1"),
            ("Set-Cookie", "urs=login-side; Path=/; Secure"),
          ])))
    #expect(walk.hop.headers.value(for: "Authorization") == nil)
    #expect(walk.hop.headers.value(for: "Cookie") == nil)

    #expect(
      try walk.follow(
        after: answer(302, [("Location", "/file"), ("Set-Cookie", "sid=abc; Path=/; HttpOnly")])))
    #expect(walk.hop.headers.value(for: "Cookie") == "sid=abc")
    #expect(walk.hop.headers.value(for: "Authorization") == nil)
    #expect(try !walk.follow(after: answer(200, [])))
    #expect(state.cookies().map(\.name).sorted() == ["sid", "urs"])
  }

  @Test func the_transfers_own_authorization_wins_on_its_origin_and_default_stays_there() throws {
    let state = try state("default login any password one\n", cookies: nil)
    let request = TransferRequest(
      url: URL(string: "http://a.example/f")!, headers: [HTTPField("Authorization", "Bearer t")])
    var walk = RedirectWalk(request, state: state)
    #expect(walk.hop.headers.value(for: "Authorization") == "Bearer t")
    #expect(!walk.hop.readsCookies)
    #expect(try walk.follow(after: answer(302, [("Location", "http://b.example/f")])))
    // Another host: no own headers, and the default login does not follow.
    #expect(walk.hop.headers.value(for: "Authorization") == nil)

    var plain = RedirectWalk(TransferRequest(url: URL(string: "http://a.example/f")!), state: state)
    #expect(
      plain.hop.headers.value(for: "Authorization")
        == Netrc.Login(login: "any", password: "one").basicAuthorization)
    #expect(try plain.follow(after: answer(302, [("Location", "http://b.example/f")])))
    #expect(plain.hop.headers.value(for: "Authorization") == nil)
  }

  @Test func loaded_cookies_join_a_cookie_field_the_transfer_gave() throws {
    let state = try state(
      "", cookies: [Cookie(name: "sid", value: "1", domain: "a.example", hostOnly: true)])
    let walk = RedirectWalk(
      TransferRequest(
        url: URL(string: "http://a.example/f")!, headers: [HTTPField("Cookie", "x=y")]),
      state: state)
    #expect(walk.hop.headers.value(for: "Cookie") == "x=y; sid=1")
  }
}
