import HaulCore
import Testing

@testable import HaulCurl

/// The header lines libcurl hands over, one per call, become a `ResponseHead`: names and
/// values trimmed at the byte level, folded lines joined, interim responses dropped.
@Suite("ResponseHeadParser: header lines to a head")
struct ResponseHeadParserTests {
  private func parse(_ lines: [String], maxBytes: Int = 1 << 18, keepsCookies: Bool = false)
    -> [ResponseHeadParser.Step]
  {
    var parser = ResponseHeadParser(maxBytes: maxBytes, keepsCookies: keepsCookies)
    return lines.map { line in
      Array(line.utf8).withUnsafeBytes { parser.consume($0) }
    }
  }

  @Test func set_cookie_fields_are_kept_each_on_its_own_only_when_cookies_are_read() {
    let lines = [
      "HTTP/1.1 302 Found\r\n", "Set-Cookie: a=1; Path=/\r\n", "set-cookie: b=2\r\n",
      "Location: /x\r\n", "\r\n",
    ]
    #expect(
      parse(lines, keepsCookies: true).last
        == .complete(
          ResponseHead(
            status: 302,
            headers: [
              HTTPField("Set-Cookie", "a=1; Path=/"), HTTPField("set-cookie", "b=2"),
              HTTPField("Location", "/x"),
            ])))
    #expect(
      parse(lines).last
        == .complete(ResponseHead(status: 302, headers: [HTTPField("Location", "/x")])))
  }

  @Test func names_and_values_are_trimmed_of_spaces_and_tabs() {
    let steps = parse([
      "HTTP/1.1 200 OK\r\n", "ETag :  \t\"abc\" \t\r\n", "Content-Type:\r\n", "\r\n",
    ])
    #expect(
      steps.last
        == .complete(
          ResponseHead(
            status: 200, headers: [HTTPField("ETag", "\"abc\""), HTTPField("Content-Type", "")])
        ))
  }

  @Test func a_folded_line_continues_the_previous_value() {
    let steps = parse(["HTTP/1.1 200 OK\r\n", "Location: one\r\n", " \t two  \r\n", "\r\n"])
    #expect(
      steps.last
        == .complete(ResponseHead(status: 200, headers: [HTTPField("Location", "one two")])))
  }

  @Test func only_the_fields_haul_reads_are_kept() {
    let steps = parse([
      "HTTP/1.1 200 OK\r\n", "Server: nginx\r\n", " folded onto Server\r\n",
      "content-LENGTH: 5\r\n", "Date: today\r\n", "ETag: \"e\"\r\n", "\r\n",
    ])
    #expect(
      steps.last
        == .complete(
          ResponseHead(
            status: 200,
            headers: [HTTPField("content-LENGTH", "5"), HTTPField("ETag", "\"e\"")])))
  }

  @Test func every_field_haul_reads_is_kept_in_any_case_and_no_other() {
    func kept(_ name: String) -> Bool {
      Array(name.utf8).withUnsafeBytes { ResponseHeadParser.isKept($0[...]) }
    }
    for name in ResponseHead.fieldsRead {
      #expect(kept(name), "\(name)")
      #expect(kept(name.uppercased()), "\(name.uppercased())")
    }
    let others = [
      "", "Server", "Date", "Connection", "Accept-Ranges", "ETags", "Etah", "digests",
      "Content-Lengt", "Content-Lengthh", "Retry-Afters", "x-amz-checksum-sha1",
      "Content-Disposition", "Last-Modifier", "Locatioη",
    ]
    for name in others { #expect(!kept(name), "\(name)") }
  }

  @Test func a_status_line_of_http2_or_later_marks_the_response_multiplexed() {
    #expect(
      parse(["HTTP/2 200\r\n", "\r\n"]).last
        == .complete(ResponseHead(status: 200, multiplexed: true)))
    #expect(
      parse(["HTTP/3 404\r\n", "\r\n"]).last
        == .complete(ResponseHead(status: 404, multiplexed: true)))
    #expect(parse(["HTTP/1.1 200 OK\r\n", "\r\n"]).last == .complete(ResponseHead(status: 200)))
    #expect(parse(["HTTP/1.0 200 OK\r\n", "\r\n"]).last == .complete(ResponseHead(status: 200)))
  }

  @Test func a_100_continue_is_dropped() {
    let steps = parse([
      "HTTP/1.1 100 Continue\r\n", "X-Interim: 1\r\n", "\r\n", "HTTP/1.1 201 Created\r\n",
      "Content-Length: 0\r\n", "\r\n",
    ])
    #expect(steps[2] == .interim(nil))
    #expect(
      steps.last
        == .complete(ResponseHead(status: 201, headers: [HTTPField("Content-Length", "0")])))
  }

  @Test func an_interim_response_other_than_100_continue_is_a_head_of_its_own() {
    let steps = parse([
      "HTTP/1.1 104 Upload Resumption Supported\r\n", "Location: /u/1\r\n",
      "Upload-Draft-Interop-Version: 8\r\n", "\r\n", "HTTP/1.1 201 Created\r\n", "\r\n",
    ])
    #expect(
      steps[3]
        == .interim(
          ResponseHead(
            status: 104,
            headers: [
              HTTPField("Location", "/u/1"), HTTPField("Upload-Draft-Interop-Version", "8"),
            ])))
    #expect(steps.last == .complete(ResponseHead(status: 201)))
  }

  @Test func a_block_over_the_limit_is_refused() {
    let steps = parse(
      ["HTTP/1.1 200 OK\r\n", "X-Big: " + String(repeating: "a", count: 100) + "\r\n"], maxBytes: 64
    )
    #expect(steps.last == .tooLarge)
  }

  @Test func lookup_ignores_ascii_case() {
    let head = ResponseHead(status: 200, headers: [HTTPField("content-LENGTH", " 42 ")])
    #expect(head.value(for: "Content-Length") == " 42 ")
    #expect(head.contentLength == 42)
    #expect(head.value(for: "Content-Lengths") == nil)
  }
}
