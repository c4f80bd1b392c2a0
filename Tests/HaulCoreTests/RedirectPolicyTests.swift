import Foundation
import HaulCore
import Testing

@Suite("Redirect policy: the same rules for every transport")
struct RedirectPolicyTests {
  let policy = RedirectPolicy(maxRedirects: 10)
  let here = URL(string: "https://a.example/x/file")!

  func redirect(_ status: Int, to location: String) -> ResponseHead {
    ResponseHead(status: status, headers: [HTTPField("Location", location)])
  }

  @Test func a_redirect_to_exactly_the_url_plus_a_slash_names_a_folder() {
    let sub = URL(string: "http://a.example/pub/with%20space")!
    for location in ["/pub/with%20space/", "http://a.example/pub/with%20space/", "with%20space/"] {
      #expect(
        RedirectWalk.folder(after: redirect(301, to: location), of: sub)?.absoluteString
          == "http://a.example/pub/with%20space/", "\(location)")
    }
    for location in [
      "/pub/other/", "/pub/with%20space/x/", "https://a.example/pub/with%20space/",
      "/pub/with%20space/?a=1", "/pub/with%20space",
    ] {
      #expect(
        RedirectWalk.folder(after: redirect(301, to: location), of: sub) == nil, "\(location)")
    }
    #expect(RedirectWalk.folder(after: redirect(200, to: "/pub/with%20space/"), of: sub) == nil)
  }

  @Test func a_request_that_stops_at_a_folder_redirect_ends_there_and_others_follow() throws {
    var request = TransferRequest(url: URL(string: "http://a.example/pub/sub")!, method: "HEAD")
    let answer = TransferResponse(head: redirect(301, to: "/pub/sub/"), bodyBytes: 0)
    var following = RedirectWalk(request)
    #expect(try following.follow(after: answer))
    request.stopsAtFolderRedirect = true
    var stopping = RedirectWalk(request)
    #expect(try !stopping.follow(after: answer))
    let elsewhere = TransferResponse(head: redirect(302, to: "/pub/moved"), bodyBytes: 0)
    #expect(try stopping.follow(after: elsewhere), "any other redirect is followed")
  }

  @Test func a_request_that_stops_at_redirects_ends_at_any_it_would_follow() throws {
    var request = TransferRequest(url: URL(string: "http://a.example/o/n/resolve/main/f")!)
    request.stopsAtRedirect = true
    var walk = RedirectWalk(request)
    let away = TransferResponse(head: redirect(302, to: "https://cdn.example/b?s=1"), bodyBytes: 0)
    #expect(try !walk.follow(after: away))
    #expect(walk.hops == 0 && walk.hop.url == request.url)
    #expect(throws: TransferError.self) {
      try walk.follow(after: TransferResponse(head: redirect(302, to: "ftp://x/"), bodyBytes: 0))
    }
  }

  @Test func follows_a_relative_location() {
    #expect(
      policy.decide(
        head: redirect(302, to: "../y"), current: here, method: "GET", isUpload: false, hops: 0)
        == .follow(url: URL(string: "https://a.example/y")!, method: "GET"))
  }

  @Test func refuses_other_schemes_and_downgrades() {
    #expect(
      policy.decide(
        head: redirect(301, to: "ftp://a.example/f"), current: here, method: "GET",
        isUpload: false, hops: 0)
        == .refuse(reason: "redirect to scheme \"ftp\" (only http and https)"))
    #expect(
      policy.decide(
        head: redirect(301, to: "http://a.example/f"), current: here, method: "GET",
        isUpload: false, hops: 0) == .refuse(reason: "redirect from https to http"))
  }

  @Test func the_eleventh_redirect_is_refused() {
    #expect(
      policy.decide(
        head: redirect(302, to: "/a"), current: here, method: "GET", isUpload: false, hops: 9)
        == .follow(url: URL(string: "https://a.example/a")!, method: "GET"))
    #expect(
      policy.decide(
        head: redirect(302, to: "/a"), current: here, method: "GET", isUpload: false, hops: 10)
        == .refuse(reason: "more than 10 redirects"))
  }

  @Test func uploads_follow_only_same_origin_307_and_308() {
    #expect(
      policy.decide(
        head: redirect(307, to: "/b"), current: here, method: "PUT", isUpload: true, hops: 0)
        == .follow(url: URL(string: "https://a.example/b")!, method: "PUT"))
    #expect(
      policy.decide(
        head: redirect(308, to: "https://b.example/b"), current: here, method: "PUT",
        isUpload: true, hops: 0) == .refuse(reason: "upload redirected to another origin"))
    for status in [301, 302, 303] {
      #expect(
        policy.decide(
          head: redirect(status, to: "/b"), current: here, method: "PUT", isUpload: true, hops: 0)
          == .refuse(reason: "upload answered by \(status)"))
    }
  }

  @Test func non_redirects_are_final() {
    #expect(
      policy.decide(
        head: ResponseHead(status: 200), current: here, method: "GET", isUpload: false, hops: 0)
        == .final)
    #expect(
      policy.decide(
        head: ResponseHead(status: 302), current: here, method: "GET", isUpload: false, hops: 0)
        == .final)
  }

  @Test func origins_compare_scheme_host_and_port() {
    #expect(
      Origin(URL(string: "https://A.example/x")!) == Origin(URL(string: "https://a.example:443/y")!)
    )
    #expect(
      Origin(URL(string: "http://a.example/x")!) != Origin(URL(string: "http://a.example:8080/x")!))
    #expect(
      Origin(URL(string: "http://a.example/x")!) != Origin(URL(string: "https://a.example/x")!))
  }
}
