import HaulCore
import Testing

@Suite("Response validation: what a download does with each answer")
struct ResponseValidationTests {
  typealias Plan = ResponseValidation.Plan

  struct Case: Sendable, CustomTestStringConvertible {
    var name: String
    var status: Int
    var headers: [HTTPField]
    var requested: ByteRange?
    var expectedSize: Int64?
    var plan: Plan
    /// The total the resume state recorded for the partial file.
    var knownTotal: Int64? = nil
    /// The validator the request sent as `If-Range`.
    var ifRange: String? = nil
    var testDescription: String { name }
  }

  static let cases: [Case] = [
    Case(
      name: "200 to a plain request writes from zero", status: 200,
      headers: [HTTPField("Content-Length", "10")], requested: nil, expectedSize: 10,
      plan: .write(offset: 0, total: 10, restart: false)),
    Case(
      name: "200 to a range request restarts from zero", status: 200,
      headers: [HTTPField("Content-Length", "10")], requested: ByteRange(start: 4),
      expectedSize: nil, plan: .write(offset: 0, total: 10, restart: true)),
    Case(
      name: "200 with the range asked for as its Content-Range is that range", status: 200,
      headers: [HTTPField("Content-Range", "bytes 4-7/10"), HTTPField("Content-Length", "4")],
      requested: ByteRange(start: 4, end: 7), expectedSize: 10,
      plan: .write(offset: 4, total: 10, restart: false)),
    Case(
      name: "200 with an open range's Content-Range is the rest", status: 200,
      headers: [HTTPField("Content-Range", "bytes 4-9/10")], requested: ByteRange(start: 4),
      expectedSize: nil, plan: .write(offset: 4, total: 10, restart: false)),
    Case(
      name: "200 whose Content-Range is another range is the whole resource", status: 200,
      headers: [HTTPField("Content-Range", "bytes 0-9/10"), HTTPField("Content-Length", "10")],
      requested: ByteRange(start: 4, end: 7), expectedSize: nil,
      plan: .write(offset: 0, total: 10, restart: true)),
    Case(
      name: "200 with the range's Content-Range but another length is the whole resource",
      status: 200,
      headers: [HTTPField("Content-Range", "bytes 4-7/10"), HTTPField("Content-Length", "10")],
      requested: ByteRange(start: 4, end: 7), expectedSize: nil,
      plan: .write(offset: 0, total: 10, restart: true)),
    Case(
      name: "206 matching the request appends", status: 206,
      headers: [HTTPField("Content-Range", "bytes 4-9/10"), HTTPField("Content-Length", "6")],
      requested: ByteRange(start: 4), expectedSize: 10,
      plan: .write(offset: 4, total: 10, restart: false)),
    Case(
      name: "206 starting elsewhere is refused", status: 206,
      headers: [HTTPField("Content-Range", "bytes 0-9/10")], requested: ByteRange(start: 4),
      expectedSize: nil,
      plan: .fail(TransferError(.protocol, "Content-Range starts at 0, asked for 4"))),
    Case(
      name: "206 without Content-Range is refused", status: 206, headers: [],
      requested: ByteRange(start: 4), expectedSize: nil,
      plan: .fail(TransferError(.protocol, "206 answer without a valid Content-Range"))),
    Case(
      name: "206 to a request without Range is refused", status: 206,
      headers: [HTTPField("Content-Range", "bytes 0-9/10")], requested: nil, expectedSize: nil,
      plan: .fail(TransferError(.protocol, "206 answer to a request without Range"))),
    Case(
      name: "206 whose total changed from the expected size fails", status: 206,
      headers: [HTTPField("Content-Range", "bytes 4-11/12")], requested: ByteRange(start: 4),
      expectedSize: 10,
      plan: .fail(TransferError(.sizeMismatch, "server has 12 bytes, expected 10"))),
    Case(
      name: "206 ending short of the resource is refused", status: 206,
      headers: [HTTPField("Content-Range", "bytes 4-7/10")], requested: ByteRange(start: 4),
      expectedSize: nil,
      plan: .fail(TransferError(.protocol, "Content-Range ends at 7, expected 9"))),
    Case(
      name: "multipart/byteranges is refused", status: 206,
      headers: [HTTPField("Content-Type", "multipart/byteranges; boundary=x")],
      requested: ByteRange(start: 4), expectedSize: nil,
      plan: .fail(TransferError(.protocol, "unexpected multipart/byteranges response"))),
    Case(
      name: "416 with the partial complete finishes without a body", status: 416,
      headers: [HTTPField("Content-Range", "bytes */10")], requested: ByteRange(start: 10),
      expectedSize: 10, plan: .complete(total: 10)),
    Case(
      name: "416 with the partial larger than the remote restarts", status: 416,
      headers: [HTTPField("Content-Range", "bytes */8")], requested: ByteRange(start: 10),
      expectedSize: nil, plan: .restart),
    Case(
      name: "200 whose length differs from the expected size fails", status: 200,
      headers: [HTTPField("Content-Length", "11")], requested: nil, expectedSize: 10,
      plan: .fail(TransferError(.sizeMismatch, "server has 11 bytes, expected 10"))),
    Case(
      name: "206 whose total changed since the partial was saved starts over", status: 206,
      headers: [HTTPField("Content-Range", "bytes 4-11/12"), HTTPField("Content-Length", "8")],
      requested: ByteRange(start: 4), expectedSize: nil, plan: .restart, knownTotal: 10),
    Case(
      name: "206 whose total is still the saved one appends", status: 206,
      headers: [HTTPField("Content-Range", "bytes 4-9/10")], requested: ByteRange(start: 4),
      expectedSize: nil, plan: .write(offset: 4, total: 10, restart: false), knownTotal: 10),
    Case(
      name: "206 with an unknown total appends", status: 206,
      headers: [HTTPField("Content-Range", "bytes 4-9/*")], requested: ByteRange(start: 4),
      expectedSize: nil, plan: .write(offset: 4, total: nil, restart: false)),
    Case(
      name: "206 whose Content-Length disagrees with its Content-Range is refused", status: 206,
      headers: [HTTPField("Content-Range", "bytes 4-9/10"), HTTPField("Content-Length", "5")],
      requested: ByteRange(start: 4), expectedSize: nil,
      plan: .fail(TransferError(.protocol, "Content-Length does not match Content-Range"))),
    Case(
      name: "206 with a Content-Range past its own total is refused", status: 206,
      headers: [HTTPField("Content-Range", "bytes 4-10/10")], requested: ByteRange(start: 4),
      expectedSize: nil,
      plan: .fail(TransferError(.protocol, "206 answer without a valid Content-Range"))),
    Case(
      name: "206 to a bounded range ending elsewhere is refused", status: 206,
      headers: [HTTPField("Content-Range", "bytes 4-9/20")],
      requested: ByteRange(start: 4, end: 7), expectedSize: nil,
      plan: .fail(TransferError(.protocol, "Content-Range ends at 9, expected 7"))),
    Case(
      name: "multipart/byteranges to a request without Range is refused", status: 206,
      headers: [HTTPField("Content-Type", "Multipart/ByteRanges; boundary=x")], requested: nil,
      expectedSize: nil,
      plan: .fail(TransferError(.protocol, "unexpected multipart/byteranges response"))),
    Case(
      name: "416 whose total changed since the partial was saved starts over", status: 416,
      headers: [HTTPField("Content-Range", "bytes */10")], requested: ByteRange(start: 10),
      expectedSize: nil, plan: .restart, knownTotal: 20),
    Case(
      name: "416 with the partial shorter than the remote starts over", status: 416,
      headers: [HTTPField("Content-Range", "bytes */20")], requested: ByteRange(start: 10),
      expectedSize: nil, plan: .restart),
    Case(
      name: "416 without a Content-Range starts over", status: 416, headers: [],
      requested: ByteRange(start: 10), expectedSize: nil, plan: .restart),
    Case(
      name: "416 whose total is not the expected size fails", status: 416,
      headers: [HTTPField("Content-Range", "bytes */12")], requested: ByteRange(start: 12),
      expectedSize: 10,
      plan: .fail(TransferError(.sizeMismatch, "server has 12 bytes, expected 10"))),
    Case(
      name: "416 to a request without Range is discarded", status: 416,
      headers: [HTTPField("Content-Range", "bytes */10")], requested: nil, expectedSize: nil,
      plan: .discard),
    Case(
      name: "200 to a range request whose length is not the expected size fails", status: 200,
      headers: [HTTPField("Content-Length", "12")], requested: ByteRange(start: 4),
      expectedSize: 10,
      plan: .fail(TransferError(.sizeMismatch, "server has 12 bytes, expected 10"))),
    Case(
      name: "200 without a length writes from zero, total unknown", status: 200, headers: [],
      requested: nil, expectedSize: 10, plan: .write(offset: 0, total: nil, restart: false)),
    Case(
      name: "206 whose ETag differs from the If-Range sent starts over", status: 206,
      headers: [HTTPField("Content-Range", "bytes 4-9/10"), HTTPField("ETag", "\"v2\"")],
      requested: ByteRange(start: 4), expectedSize: 10, plan: .restart, ifRange: "\"v1\""),
    Case(
      name: "206 whose ETag is the If-Range sent appends", status: 206,
      headers: [HTTPField("Content-Range", "bytes 4-9/10"), HTTPField("ETag", "\"v1\"")],
      requested: ByteRange(start: 4), expectedSize: 10,
      plan: .write(offset: 4, total: 10, restart: false), ifRange: "\"v1\""),
    Case(
      name: "206 whose Last-Modified differs from the date sent starts over", status: 206,
      headers: [
        HTTPField("Content-Range", "bytes 4-9/10"),
        HTTPField("Last-Modified", "Tue, 02 Jan 2024 00:00:00 GMT"),
      ],
      requested: ByteRange(start: 4), expectedSize: nil, plan: .restart,
      ifRange: "Mon, 01 Jan 2024 00:00:00 GMT"),
    Case(
      name: "206 resumed by date is not judged by its ETag", status: 206,
      headers: [
        HTTPField("Content-Range", "bytes 4-9/10"), HTTPField("ETag", "\"new\""),
        HTTPField("Last-Modified", "Mon, 01 Jan 2024 00:00:00 GMT"),
      ],
      requested: ByteRange(start: 4), expectedSize: nil,
      plan: .write(offset: 4, total: 10, restart: false),
      ifRange: "Mon, 01 Jan 2024 00:00:00 GMT"),
    Case(
      name: "206 without a validator appends", status: 206,
      headers: [HTTPField("Content-Range", "bytes 4-9/10")], requested: ByteRange(start: 4),
      expectedSize: nil, plan: .write(offset: 4, total: 10, restart: false),
      ifRange: "\"v1\""),
    Case(
      name: "404 is discarded", status: 404, headers: [], requested: nil, expectedSize: nil,
      plan: .discard),
    Case(
      name: "a redirect is discarded", status: 302, headers: [HTTPField("Location", "/x")],
      requested: nil, expectedSize: nil, plan: .discard),
  ]

  @Test(arguments: cases)
  func plan(_ example: Case) {
    let head = ResponseHead(status: example.status, headers: example.headers)
    #expect(
      ResponseValidation.plan(
        for: head, requested: example.requested, expectedSize: example.expectedSize,
        knownTotal: example.knownTotal, ifRange: example.ifRange) == example.plan)
  }

  @Test func weak_etags_are_never_used_as_validators() {
    let weak = ResponseHead(
      status: 200,
      headers: [HTTPField("ETag", "W/\"abc\""), HTTPField("Last-Modified", "Mon, 01 Jan 2024")])
    #expect(Validator.from(weak) == "Mon, 01 Jan 2024")
    let strong = ResponseHead(status: 200, headers: [HTTPField("ETag", "\"abc\"")])
    #expect(Validator.from(strong) == "\"abc\"")
    #expect(
      Validator.from(ResponseHead(status: 200, headers: [HTTPField("ETag", "W/\"x\"")])) == nil)
  }

  @Test func content_range_parsing() {
    #expect(ContentRange("bytes 0-9/10") == ContentRange("bytes 0-9/10"))
    #expect(ContentRange("bytes 0-9/10")?.total == 10)
    #expect(ContentRange("bytes 0-9/*")?.total == nil)
    #expect(ContentRange("bytes 0-9/*") != nil)
    #expect(ContentRange("bytes 5-4/10") == nil)
    #expect(ContentRange("bytes 0-10/10") == nil)
    #expect(ContentRange("items 0-9/10") == nil)
    #expect(ContentRange("bytes 0-9") == nil)
    #expect(ContentRange.unsatisfiedTotal("bytes */42") == 42)
  }
}
