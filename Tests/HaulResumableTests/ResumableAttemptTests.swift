import Foundation
import Testing

@testable import HaulCore
@testable import HaulResumable

@Suite("ResumableAttempt: what both resumable protocols share of one attempt")
struct ResumableAttemptTests {
  let endpoint = URL(string: "http://127.0.0.1:1080/files/")!
  let resource = URL(string: "http://127.0.0.1:1080/files/abc")!
  let fields = [HTTPField("X-Protocol", "1")]

  func attempt(size: Int64 = 10, chunk: Int64 = 4, at location: URL? = nil) -> ResumableAttempt {
    var attempt = ResumableAttempt(
      creationURL: endpoint, size: size, fileName: "a.bin", chunkSize: chunk, headers: fields)
    attempt.location = location
    return attempt
  }

  func head(_ status: Int, _ fields: [(String, String)] = []) -> ResponseHead {
    ResponseHead(status: status, headers: fields.map { HTTPField($0.0, $0.1) })
  }

  @Test func a_recorded_resource_is_located_with_head_and_the_protocols_fields() throws {
    var recorded = attempt(at: resource)
    guard case .send(let request) = recorded.locate() else {
      Issue.record("a recorded resource is located")
      return
    }
    #expect(request.method == "HEAD" && request.url == resource && request.headers == fields)
    #expect(request.body == nil && recorded.phase == .locating)
    var fresh = attempt()
    #expect(fresh.locate() == nil, "nothing to locate: the machine creates one")
    #expect(fresh.phase == .idle)
  }

  @Test func the_next_chunk_goes_from_the_offset_with_the_protocols_fields() throws {
    var appending = attempt(size: 10, chunk: 4, at: resource)
    appending.offset = 8
    var chunks: [Range<Int64>] = []
    guard
      case .send(let patch) = appending.append(
        checksumSHA1: true,
        fields: { range in
          chunks.append(range)
          return [HTTPField("X-Last", range.upperBound == 10 ? "yes" : "no")]
        })
    else {
      Issue.record("a known resource takes the next chunk")
      return
    }
    #expect(patch.method == "PATCH" && patch.url == resource && patch.body == 8..<10)
    #expect(patch.checksumSHA1 && chunks == [8..<10])
    #expect(
      patch.headers
        == fields + [HTTPField("Upload-Offset", "8"), HTTPField("X-Last", "yes")])
    #expect(appending.phase == .appending(8..<10))
    var unknown = attempt()
    #expect(unknown.append(fields: { _ in [] }) == nil && unknown.phase == .idle)
  }

  @Test func the_head_answer_is_read_the_same_for_both_protocols() {
    let located = attempt()
    #expect(located.located(head(200, [("Upload-Offset", "6")])) == .offset(6))
    #expect(
      located.located(head(204, [("Upload-Offset", "10"), ("Upload-Length", "10")]))
        == .offset(10))
    #expect(located.located(head(404)) == .forgotten)
    #expect(located.located(head(410, [("Upload-Offset", "3")])) == .forgotten)
    #expect(
      located.located(head(200, [("Upload-Offset", "3"), ("Upload-Length", "9")])) == .forgotten,
      "an upload of another length is another file's")
    #expect(located.located(head(500)) == .refused && located.located(head(403)) == .refused)
    #expect(located.located(head(200)) == .noOffset)
    #expect(located.located(head(200, [("Upload-Offset", "-1")])) == .noOffset)
    #expect(located.located(head(200, [("Upload-Offset", "11")])) == .beyond(11))
  }

  @Test func a_forgotten_resource_is_renewed_once_per_attempt() {
    var renewing = attempt(at: resource)
    #expect(renewing.renew(head(404)) == nil, "the first time the machine creates it anew")
    #expect(renewing.renewed)
    guard case .failed(let failure) = renewing.renew(head(410)) else {
      Issue.record("a second forgotten resource fails the attempt")
      return
    }
    #expect(failure.error.code == .http(410) && renewing.phase == .failed)
  }

  @Test func three_conflicts_are_taken_and_the_fourth_is_not() {
    var conflicted = attempt(at: resource)
    let taken = (1...4).map { _ in conflicted.conflict() }
    #expect(taken == [true, true, true, false] && conflicted.conflicts == 4)
  }

  @Test func chunks_go_from_the_offset_and_a_smaller_limit_lowers_them() {
    var chunked = attempt(size: 10, chunk: 4)
    #expect(chunked.nextChunk == 0..<4)
    chunked.offset = 8
    #expect(chunked.nextChunk == 8..<10, "the last chunk ends with the file")
    #expect(chunked.limitChunk(to: 3) && chunked.chunkSize == 3)
    #expect(!chunked.limitChunk(to: 5) && !chunked.limitChunk(to: 0) && chunked.chunkSize == 3)
    chunked.offset = 2
    #expect(chunked.nextChunk == 2..<5)
  }

  @Test func a_failed_exchange_ends_the_attempt_and_keeps_the_resource() {
    var failing = attempt(at: resource)
    failing.offset = 4
    guard case .failed(let failure) = failing.exchangeFailed(TransferError(.connection, "reset"))
    else {
      Issue.record("not failed")
      return
    }
    #expect(failure.error.code == .connection && !failure.answered)
    #expect(failing.phase == .failed && failing.location == resource && failing.offset == 4)
    #expect(failing.cancellation() == ResumableRequest("DELETE", resource, headers: fields))
    #expect(attempt().cancellation() == nil, "nothing to cancel before a resource exists")
  }

  @Test func failures_of_an_answer_are_answered_and_say_whether_they_are_retried() {
    var failing = attempt(at: resource)
    guard case .failed(let refused) = failing.failHTTP(head(503), resumable: true),
      case .failed(let plain) = failing.failHTTP(head(422)),
      case .failed(let broken) = failing.fail(.protocol, "no Location")
    else {
      Issue.record("not failed")
      return
    }
    #expect(refused.answered && refused.transient && refused.error.code == .http(503))
    #expect(plain.answered && !plain.transient && plain.error.code == .http(422))
    #expect(broken.answered && broken.error.code == .protocol && failing.phase == .failed)
  }

  @Test func finishing_acknowledges_the_whole_file() {
    var finishing = attempt(at: resource)
    guard case .finished = finishing.finish() else {
      Issue.record("not finished")
      return
    }
    #expect(finishing.offset == 10 && finishing.phase == .finished)
  }

  @Test func each_protocol_names_its_machine_and_its_fields() {
    #expect(ResumableProtocol.tus.machine is TusMachine.Type)
    #expect(ResumableProtocol.ietf.machine is IETFUploadMachine.Type)
    #expect(TusMachine.cancellation(at: resource).headers.value(for: "Tus-Resumable") == "1.0.0")
    #expect(
      IETFUploadMachine.cancellation(at: resource).headers.value(
        for: "Upload-Draft-Interop-Version") == "8")
  }
}
