import Foundation
import Testing

@testable import HaulCore
@testable import HaulResumable

@Suite("IETFUploadMachine: the resumable upload draft, interop version 8")
struct IETFUploadMachineTests {
  let target = URL(string: "http://127.0.0.1:1080/project/files")!
  let resource = URL(string: "http://127.0.0.1:1080/uploads/abc")!

  func machine(size: Int64 = 10, chunk: Int64 = 4) -> IETFUploadMachine {
    IETFUploadMachine(creationURL: target, size: size, fileName: "é 1.bin", chunkSize: chunk)
  }

  func head(_ status: Int, _ fields: [(String, String)] = []) -> ResponseHead {
    ResponseHead(status: status, headers: fields.map { HTTPField($0.0, $0.1) })
  }

  func interim(_ fields: [(String, String)], version: String = "8") -> ResponseHead {
    head(104, fields + [("Upload-Draft-Interop-Version", version)])
  }

  func request(_ step: ResumableStep) throws -> ResumableRequest {
    guard case .send(let request) = step else {
      Issue.record("expected a request, got \(step)")
      throw CancellationError()
    }
    return request
  }

  func isFinished(_ step: ResumableStep) -> Bool {
    if case .finished = step { return true }
    return false
  }

  @Test func creation_carries_the_first_chunk_and_the_rest_goes_in_patches() throws {
    var draft = machine()
    let post = try request(draft.start(recorded: nil))
    #expect(post.method == "POST" && post.url == target && post.body == 0..<4)
    #expect(post.headers.value(for: "Upload-Draft-Interop-Version") == "8")
    #expect(post.headers.value(for: "Upload-Complete") == "?0")
    #expect(post.headers.value(for: "Upload-Length") == "10")
    #expect(
      post.headers.value(for: "Content-Disposition") == "inline; filename*=UTF-8''%C3%A9%201.bin")
    draft.interim(interim([("Location", "/uploads/abc")]))
    #expect(draft.location == resource, "the 104 announces the upload resource")
    let patch = try request(draft.answered(head(201, [("Location", "/uploads/abc")])))
    #expect(patch.method == "PATCH" && patch.url == resource && patch.body == 4..<8)
    #expect(patch.headers.value(for: "Upload-Offset") == "4")
    #expect(patch.headers.value(for: "Upload-Complete") == "?0")
    #expect(patch.headers.value(for: "Content-Type") == "application/partial-upload")
    let last = try request(draft.answered(head(204, [("Upload-Complete", "?0")])))
    #expect(last.body == 8..<10 && last.headers.value(for: "Upload-Complete") == "?1")
    #expect(isFinished(draft.answered(head(200, [("Upload-Complete", "?1")]))))
  }

  @Test func a_file_within_one_chunk_goes_whole_on_the_first_request() throws {
    var draft = machine(size: 3)
    let post = try request(draft.start(recorded: nil))
    #expect(post.body == 0..<3 && post.headers.value(for: "Upload-Complete") == "?1")
    #expect(isFinished(draft.answered(head(200))), "a plain success completes it")
  }

  @Test func a_104_during_an_append_tells_the_offset_reached_and_names_no_resource() throws {
    var draft = machine()
    _ = draft.start(recorded: resource)
    _ = draft.answered(head(204, [("Upload-Offset", "0"), ("Upload-Complete", "?0")]))
    draft.interim(interim([("Upload-Offset", "3"), ("Location", "/uploads/other")]))
    #expect(draft.offset == 3 && draft.location == resource)
    draft.interim(interim([("Upload-Offset", "99")]))
    #expect(draft.offset == 3, "an offset past the file is ignored")
    guard case .failed = draft.exchangeFailed(TransferError(.connection, "reset")) else {
      Issue.record("not failed")
      return
    }
    #expect(draft.offset == 3, "what the server acknowledged stays for the state file")
  }

  @Test func a_104_of_another_interop_version_is_ignored() throws {
    var draft = machine()
    _ = draft.start(recorded: nil)
    draft.interim(interim([("Location", "/uploads/abc")], version: "7"))
    draft.interim(head(103, [("Location", "/uploads/abc")]))
    #expect(draft.location == nil)
  }

  @Test func a_creation_cut_short_after_its_104_leaves_the_resource_to_resume() throws {
    var draft = machine()
    _ = draft.start(recorded: nil)
    draft.interim(interim([("Location", "/uploads/abc")]))
    guard case .failed(let failure) = draft.exchangeFailed(TransferError(.connection, "reset"))
    else {
      Issue.record("not failed")
      return
    }
    #expect(failure.error.code == .connection && draft.location == resource)
    var next = machine()
    let probe = try request(next.start(recorded: resource))
    #expect(probe.method == "HEAD" && probe.url == resource)
    let patch = try request(
      next.answered(
        head(204, [("Upload-Offset", "3"), ("Upload-Complete", "?0"), ("Upload-Length", "10")])))
    #expect(patch.body == 3..<7 && patch.headers.value(for: "Upload-Offset") == "3")
  }

  @Test func a_location_that_changed_since_the_104_is_refused() {
    var draft = machine()
    _ = draft.start(recorded: nil)
    draft.interim(interim([("Location", "/uploads/abc")]))
    guard case .failed(let failure) = draft.answered(head(201, [("Location", "/uploads/zzz")]))
    else {
      Issue.record("not failed")
      return
    }
    #expect(failure.error.code == .protocol)
    #expect(draft.cancellation()?.method == "DELETE" && draft.cancellation()?.url == resource)
  }

  @Test func a_conflict_continues_from_the_offset_the_server_names() throws {
    var draft = machine()
    _ = draft.start(recorded: resource)
    _ = draft.answered(head(204, [("Upload-Offset", "4"), ("Upload-Complete", "?0")]))
    let patch = try request(draft.answered(head(409, [("Upload-Offset", "6")])))
    #expect(patch.body == 6..<10 && patch.headers.value(for: "Upload-Complete") == "?1")
  }

  @Test func a_completed_upload_needs_nothing_more() {
    var draft = machine()
    _ = draft.start(recorded: resource)
    #expect(
      isFinished(draft.answered(head(204, [("Upload-Offset", "10"), ("Upload-Complete", "?1")]))))
  }

  @Test(arguments: [404, 410])
  func a_forgotten_resource_starts_a_new_upload(status: Int) throws {
    var draft = machine()
    _ = draft.start(recorded: resource)
    let post = try request(draft.answered(head(status)))
    #expect(post.method == "POST" && post.body == 0..<4)
  }

  @Test func the_servers_max_append_size_bounds_every_request() throws {
    var draft = machine(size: 10, chunk: 8)
    _ = draft.start(recorded: resource)
    let patch = try request(
      draft.answered(
        head(
          204,
          [
            ("Upload-Offset", "0"), ("Upload-Complete", "?0"),
            ("Upload-Limit", "max-size=100, max-append-size=3;x=1"),
          ])))
    #expect(patch.body == 0..<3)
    let retry = try request(
      draft.answered(head(413, [("Upload-Limit", "max-append-size=2")])))
    #expect(retry.body == 0..<2, "a 413 naming a smaller limit is sent again within it")
  }

  @Test func an_error_with_upload_complete_is_the_processing_result_and_final() {
    var draft = machine(size: 3)
    _ = draft.start(recorded: nil)
    guard case .failed(let failure) = draft.answered(head(422, [("Upload-Complete", "?1")]))
    else {
      Issue.record("not failed")
      return
    }
    #expect(failure.error.code == .http(422) && !failure.transient)
  }

  @Test func a_server_error_leaves_the_upload_to_the_next_attempt() {
    var draft = machine()
    _ = draft.start(recorded: resource)
    _ = draft.answered(head(204, [("Upload-Offset", "0"), ("Upload-Complete", "?0")]))
    guard case .failed(let failure) = draft.answered(head(503)) else {
      Issue.record("not failed")
      return
    }
    #expect(failure.transient && draft.location == resource)
  }

  @Test func structured_fields_are_read_as_the_draft_defines_them() {
    #expect(ResumableFields.integer(" 42 ") == 42)
    #expect(ResumableFields.integer("-1") == nil && ResumableFields.integer("4.2") == nil)
    #expect(ResumableFields.integer("1234567890123456") == nil, "more than 15 digits")
    #expect(ResumableFields.boolean("?1") == true && ResumableFields.boolean("?0") == false)
    #expect(ResumableFields.boolean("1") == nil)
    #expect(
      ResumableFields.integers("max-size=10, max-age=3600, flag, x=\"s\"")
        == ["max-size": 10, "max-age": 3600])
  }
}
