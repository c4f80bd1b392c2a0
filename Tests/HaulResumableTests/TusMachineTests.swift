import Foundation
import Testing

@testable import HaulCore
@testable import HaulResumable

@Suite("TusMachine: tus 1.0 creation, offset, PATCH chunks, checksum, termination")
struct TusMachineTests {
  let endpoint = URL(string: "http://127.0.0.1:1080/files/")!
  let upload = URL(string: "http://127.0.0.1:1080/files/abc")!

  func machine(size: Int64 = 10, chunk: Int64 = 4) -> TusMachine {
    TusMachine(creationURL: endpoint, size: size, fileName: "a b.bin", chunkSize: chunk)
  }

  func head(_ status: Int, _ fields: [(String, String)] = []) -> ResponseHead {
    ResponseHead(status: status, headers: fields.map { HTTPField($0.0, $0.1) })
  }

  func request(_ step: ResumableStep) throws -> ResumableRequest {
    guard case .send(let request) = step else {
      Issue.record("expected a request, got \(step)")
      throw CancellationError()
    }
    return request
  }

  @Test func a_new_upload_is_discovered_created_and_sent_in_chunks() throws {
    var tus = machine()
    let options = try request(tus.start(recorded: nil))
    #expect(options.method == "OPTIONS" && options.url == endpoint)
    #expect(options.headers.value(for: "Tus-Resumable") == "1.0.0")
    let post = try request(tus.answered(head(204, [("Tus-Extension", "creation,termination")])))
    #expect(post.method == "POST" && post.url == endpoint && post.body == nil)
    #expect(post.headers.value(for: "Upload-Length") == "10")
    #expect(
      post.headers.value(for: "Upload-Metadata")
        == "filename \(Data("a b.bin".utf8).base64EncodedString())")
    let first = try request(tus.answered(head(201, [("Location", "/files/abc")])))
    #expect(tus.location == upload, "Location resolved against the endpoint")
    #expect(first.method == "PATCH" && first.url == upload && first.body == 0..<4)
    #expect(first.headers.value(for: "Upload-Offset") == "0")
    #expect(first.headers.value(for: "Content-Type") == "application/offset+octet-stream")
    #expect(!first.checksumSHA1)
    let second = try request(tus.answered(head(204, [("Upload-Offset", "4")])))
    #expect(second.body == 4..<8 && second.headers.value(for: "Upload-Offset") == "4")
    let last = try request(tus.answered(head(204, [("Upload-Offset", "8")])))
    #expect(last.body == 8..<10)
    guard case .finished = tus.answered(head(204, [("Upload-Offset", "10")])) else {
      Issue.record("not finished")
      return
    }
    #expect(tus.offset == 10)
  }

  @Test func a_recorded_upload_is_asked_for_its_offset_and_only_the_rest_is_sent() throws {
    var tus = machine()
    _ = tus.start(recorded: upload)
    let probe = try request(tus.answered(head(405)))
    #expect(probe.method == "HEAD" && probe.url == upload, "OPTIONS refused: go on without")
    let patch = try request(
      tus.answered(head(200, [("Upload-Offset", "6"), ("Upload-Length", "10")])))
    #expect(patch.body == 6..<10)
  }

  @Test func checksums_go_with_each_chunk_only_when_the_server_offers_sha1() throws {
    var tus = machine()
    _ = tus.start(recorded: upload)
    _ = tus.answered(
      head(
        204, [("Tus-Extension", "creation, checksum"), ("Tus-Checksum-Algorithm", "md5,sha1")]))
    #expect(try request(tus.answered(head(200, [("Upload-Offset", "0")]))).checksumSHA1)
    var other = machine()
    _ = other.start(recorded: upload)
    _ = other.answered(
      head(204, [("Tus-Extension", "checksum"), ("Tus-Checksum-Algorithm", "md5")]))
    #expect(!(try request(other.answered(head(200, [("Upload-Offset", "0")]))).checksumSHA1))
  }

  @Test func a_checksum_mismatch_fails_as_checksum_mismatch_to_be_retried() throws {
    var tus = machine()
    _ = tus.start(recorded: upload)
    _ = tus.answered(head(204))
    _ = tus.answered(head(200, [("Upload-Offset", "0")]))
    guard case .failed(let failure) = tus.answered(head(460)) else {
      Issue.record("not failed")
      return
    }
    #expect(failure.error.code == .checksumMismatch && failure.transient)
    #expect(tus.cancellation()?.method == "DELETE" && tus.cancellation()?.url == upload)
  }

  @Test(arguments: [404, 410])
  func a_forgotten_upload_is_created_anew_once(status: Int) throws {
    var tus = machine()
    _ = tus.start(recorded: upload)
    _ = tus.answered(head(204))
    let post = try request(tus.answered(head(status)))
    #expect(post.method == "POST" && tus.location == nil)
    _ = tus.answered(head(201, [("Location", "http://127.0.0.1:1080/files/new")]))
    guard case .failed(let failure) = tus.answered(head(status)) else {
      Issue.record("a second forgotten upload in one attempt is a failure")
      return
    }
    #expect(failure.error.code == .http(status))
  }

  @Test func a_conflict_asks_for_the_offset_again() throws {
    var tus = machine()
    _ = tus.start(recorded: upload)
    _ = tus.answered(head(204))
    _ = tus.answered(head(200, [("Upload-Offset", "0")]))
    #expect(try request(tus.answered(head(409))).method == "HEAD")
    #expect(try request(tus.answered(head(200, [("Upload-Offset", "4")]))).body == 4..<8)
  }

  @Test func an_upload_of_another_length_or_without_an_offset_is_not_continued() throws {
    var tus = machine()
    _ = tus.start(recorded: upload)
    _ = tus.answered(head(204))
    let post = try request(
      tus.answered(head(200, [("Upload-Offset", "2"), ("Upload-Length", "9")])))
    #expect(post.method == "POST", "another file's upload: a new one")
    var bare = machine()
    _ = bare.start(recorded: upload)
    _ = bare.answered(head(204))
    guard case .failed(let failure) = bare.answered(head(200)) else {
      Issue.record("a HEAD without Upload-Offset is a failure")
      return
    }
    #expect(failure.error.code == .protocol)
  }

  @Test func a_patch_answer_must_move_the_offset_within_the_chunk() throws {
    var tus = machine()
    _ = tus.start(recorded: upload)
    _ = tus.answered(head(204))
    _ = tus.answered(head(200, [("Upload-Offset", "0")]))
    guard case .failed(let failure) = tus.answered(head(204, [("Upload-Offset", "7")])) else {
      Issue.record("an offset past the chunk sent is a failure")
      return
    }
    #expect(failure.error.code == .protocol)
  }

  @Test func an_empty_file_is_complete_once_created() throws {
    var tus = machine(size: 0)
    _ = tus.start(recorded: nil)
    #expect(try request(tus.answered(head(204))).headers.value(for: "Upload-Length") == "0")
    guard case .finished = tus.answered(head(201, [("Location", "/files/e")])) else {
      Issue.record("not finished")
      return
    }
  }

  @Test func another_protocol_version_is_refused() {
    var tus = machine()
    _ = tus.start(recorded: nil)
    guard case .failed(let failure) = tus.answered(head(204, [("Tus-Version", "0.2.2")])) else {
      Issue.record("not failed")
      return
    }
    #expect(failure.error.code == .protocol)
  }
}
