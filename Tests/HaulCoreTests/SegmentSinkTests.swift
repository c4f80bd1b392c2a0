import Testing

@testable import HaulCore

/// What the segment and probe sinks do with answers that end a segmented round without
/// failing the entry: they record it on themselves, and abort the exchange with an error
/// whose code is one of the documented ones.
@Suite("Segment and probe sinks: a restart or ignored ranges is recorded, never a new code")
struct SegmentSinkTests {
  static let validator = "\"v1\""

  /// The sink of the second of two segments of a 100-byte file, sent with `If-Range: "v1"`.
  static func segmentSink() -> SegmentSink {
    let file = SegmentedFile(
      fd: -1, segments: SegmentProgress.plan(total: 100, count: 2), hasher: DigestSet([]),
      counter: ProgressCounter())
    return SegmentSink(
      file: file, index: 1, requested: ByteRange(start: 50, end: 99), total: 100,
      counter: ProgressCounter(), ifRange: validator)
  }

  @Test func a_whole_body_to_a_segment_asks_for_a_restart() {
    let sink = Self.segmentSink()
    let head = ResponseHead(
      status: 200, headers: [HTTPField("Content-Length", "100"), HTTPField("ETag", Self.validator)])

    let error = #expect(throws: TransferError.self) { try sink.receive(head: head) }

    #expect(error?.code == .protocol)
    #expect(sink.restartReason == "the server sent the whole file to a range request")
  }

  @Test func a_range_of_another_version_asks_for_a_restart() {
    let sink = Self.segmentSink()
    let head = ResponseHead(
      status: 206,
      headers: [
        HTTPField("Content-Range", "bytes 50-99/100"), HTTPField("Content-Length", "50"),
        HTTPField("ETag", "\"v2\""),
      ])

    let error = #expect(throws: TransferError.self) { try sink.receive(head: head) }

    #expect(error?.code == .protocol)
    #expect(sink.restartReason == "the server sent a range of another version")
  }

  @Test func the_range_asked_for_is_written_without_a_restart() throws {
    let sink = Self.segmentSink()
    let head = ResponseHead(
      status: 206,
      headers: [
        HTTPField("Content-Range", "bytes 50-99/100"), HTTPField("Content-Length", "50"),
        HTTPField("ETag", Self.validator),
      ])

    #expect(try sink.receive(head: head))
    #expect(sink.restartReason == nil)
    #expect(sink.offset == 50)
  }

  @Test func an_error_status_is_no_restart() throws {
    let sink = Self.segmentSink()

    #expect(try !sink.receive(head: ResponseHead(status: 503)))
    #expect(sink.restartReason == nil)
  }

  @Test func a_probe_answered_with_the_whole_body_learns_the_server_ignores_ranges() {
    let sink = ProbeSink()
    let head = ResponseHead(status: 200, headers: [HTTPField("Content-Length", "100")])

    let error = #expect(throws: TransferError.self) { try sink.receive(head: head) }

    #expect(error?.code == .protocol)
    #expect(sink.ignoresRanges)
    #expect(sink.head?.status == 200)
  }

  @Test func a_probe_answered_with_its_byte_keeps_the_head() throws {
    let sink = ProbeSink()
    let head = ResponseHead(
      status: 206,
      headers: [HTTPField("Content-Range", "bytes 0-0/100"), HTTPField("Content-Length", "1")])

    #expect(try sink.receive(head: head))
    #expect(!sink.ignoresRanges)
    #expect(sink.head?.status == 206)
  }
}
