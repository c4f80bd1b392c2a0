import Foundation
import HaulCore
import Testing

@Suite(".netrc: the logins of a file, read as curl reads them")
struct NetrcTests {
  @Test func a_machine_entry_gives_its_login_to_that_host_only() throws {
    let netrc = try Netrc(
      parsing: """
        machine urs.earthdata.nasa.gov login alice password s3cret
        machine other.example
          login bob
          password hunter2
        """)
    #expect(
      netrc.login(for: "urs.earthdata.nasa.gov", allowDefault: false)
        == Netrc.Login(login: "alice", password: "s3cret"))
    #expect(
      netrc.login(for: "OTHER.example", allowDefault: true)
        == Netrc.Login(login: "bob", password: "hunter2"))
    #expect(netrc.login(for: "data.example", allowDefault: true) == nil)
  }

  @Test func the_first_matching_machine_wins_and_default_is_for_other_hosts_when_allowed() throws {
    let netrc = try Netrc(
      parsing: """
        machine a.example login first password one
        machine a.example login second password two
        default login anyone password any
        """)
    #expect(netrc.login(for: "a.example", allowDefault: true)?.login == "first")
    #expect(netrc.login(for: "b.example", allowDefault: true)?.login == "anyone")
    #expect(netrc.login(for: "b.example", allowDefault: false) == nil)
  }

  @Test func quoted_tokens_comments_accounts_and_macros_read_as_curl_reads_them() throws {
    let netrc = try Netrc(
      parsing: """
        # a comment line
        machine "q.example" login "user name" password "pa\\"ss\\\\word\\tx" account acct
        macdef init
        cd /pub
        machine fake.example login fake password fake

        machine after.example login ok password fine # trailing comment
        """)
    #expect(
      netrc.login(for: "q.example", allowDefault: false)
        == Netrc.Login(login: "user name", password: "pa\"ss\\word\tx"))
    #expect(netrc.login(for: "fake.example", allowDefault: false) == nil)
    #expect(
      netrc.login(for: "after.example", allowDefault: false)
        == Netrc.Login(login: "ok", password: "fine"))
  }

  @Test func a_login_without_password_sends_an_empty_one_and_an_entry_without_login_none() throws {
    let netrc = try Netrc(parsing: "machine a.example login only\nmachine b.example password p\n")
    #expect(netrc.login(for: "a.example", allowDefault: false)?.password == "")
    #expect(netrc.login(for: "b.example", allowDefault: false) == nil)
  }

  @Test func an_unclosed_quote_or_a_keyword_without_value_is_malformed_with_its_line() {
    #expect(
      throws: NetrcError(
        .malformed, file: "n", line: 2, reason: "a quoted token has no closing quote")
    ) {
      try Netrc(parsing: "machine a login b\nmachine c password \"open", file: "n")
    }
    #expect(throws: NetrcError.self) { try Netrc(parsing: "machine a login", file: "n") }
  }

  @Test func printing_the_logins_shows_no_password() throws {
    let netrc = try Netrc(parsing: "machine a.example login alice password s3cret\n")
    let shown =
      "\(netrc) \(String(describing: netrc.machines)) \(String(reflecting: netrc.machines))"
    #expect(!shown.contains("s3cret"))
    #expect(!shown.contains("alice"))
  }

  @Test func basic_authorization_is_login_colon_password_in_base64() {
    #expect(
      Netrc.Login(login: "Aladdin", password: "open sesame").basicAuthorization
        == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
  }

  @Test func netrc_names_the_file_as_curl_does() {
    #expect(Netrc.defaultPath(environment: ["NETRC": "/x/n", "HOME": "/h"]) == "/x/n")
    #expect(Netrc.defaultPath(environment: ["NETRC": "", "HOME": "/h"]) == "/h/.netrc")
    #expect(Netrc.defaultPath(environment: [:]) == nil)
  }
}
