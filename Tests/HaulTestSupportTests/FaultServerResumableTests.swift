import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// The fault server's resumable upload draft server, over a raw socket: the draft's server
/// rules for creation, offset retrieval, appending and cancellation, as written.
@Suite("FaultServer: the resumable upload draft's server rules")
struct FaultServerResumableTests {
  func create(_ server: FaultServer, _ body: String, complete: Bool, interop: Bool) throws
    -> RawHTTP.Response
  {
    var headers = ["Upload-Complete": complete ? "?1" : "?0", "Upload-Length": "10"]
    if interop { headers["Upload-Draft-Interop-Version"] = "8" }
    return try RawHTTP.request(
      "POST", "/rufh/raw", port: server.port, headers: headers, body: Array(body.utf8))
  }

  /// The path of `location` on the server.
  func path(_ location: String?) throws -> String {
    try #require(location.flatMap { URL(string: $0)?.path })
  }

  @Test func creation_announces_the_resource_in_a_104_only_to_interop_version_8() throws {
    let server = try FaultServer.started()
    defer { server.stop() }
    let announced = try create(server, "hello", complete: false, interop: true)
    #expect(announced.status == 104)
    #expect(announced.value(for: "Upload-Draft-Interop-Version") == "8")
    #expect(announced.value(for: "Upload-Limit") != nil)
    let location = try #require(announced.value(for: "Location"))
    let rest = String(decoding: announced.body, as: UTF8.self)
    #expect(rest.hasPrefix("HTTP/1.1 201 Created\r\n"), "\(rest)")
    #expect(rest.contains("Location: \(location)\r\n"), "the same Location in the final answer")

    let plain = try create(server, "hello", complete: false, interop: false)
    #expect(plain.status == 201, "no 104 without the interop version")
    #expect(plain.value(for: "Upload-Complete") == "?0")
    #expect(plain.value(for: "Location") != nil)
  }

  @Test func offset_retrieval_appending_and_cancellation_follow_the_draft() throws {
    let server = try FaultServer.started()
    defer { server.stop() }
    let resource = try path(
      try create(server, "hello", complete: false, interop: false).value(for: "Location"))

    let offset = try RawHTTP.request("HEAD", resource, port: server.port)
    #expect(offset.status == 204)
    #expect(offset.value(for: "Upload-Offset") == "5")
    #expect(offset.value(for: "Upload-Complete") == "?0")
    #expect(offset.value(for: "Upload-Length") == "10")
    #expect(offset.value(for: "Cache-Control") == "no-store")
    #expect(offset.value(for: "Upload-Limit") != nil)

    let partial = ["Content-Type": "application/partial-upload", "Upload-Complete": "?1"]
    let conflict = try RawHTTP.request(
      "PATCH", resource, port: server.port, headers: partial.merging(["Upload-Offset": "4"]) { $1 },
      body: Array("world".utf8))
    #expect(conflict.status == 409 && conflict.value(for: "Upload-Offset") == "5")
    let wrongType = try RawHTTP.request(
      "PATCH", resource, port: server.port,
      headers: ["Upload-Offset": "5", "Upload-Complete": "?1"], body: Array("world".utf8))
    #expect(wrongType.status == 415)

    let done = try RawHTTP.request(
      "PATCH", resource, port: server.port, headers: partial.merging(["Upload-Offset": "5"]) { $1 },
      body: Array("world".utf8))
    #expect(done.status == 200 && done.value(for: "Upload-Complete") == "?1")
    #expect(server.upload(named: "raw")?.sha256 == SHA256.hex(of: Array("helloworld".utf8)))
    let again = try RawHTTP.request(
      "PATCH", resource, port: server.port,
      headers: partial.merging(["Upload-Offset": "10"]) { $1 }, body: Array("!".utf8))
    #expect(again.status == 400, "a completed upload takes no more content")
    let empty = try RawHTTP.request(
      "PATCH", resource, port: server.port, headers: partial.merging(["Upload-Offset": "10"]) { $1 }
    )
    #expect(empty.status == 410)

    #expect(try RawHTTP.request("DELETE", resource, port: server.port).status == 204)
    #expect(try RawHTTP.request("HEAD", resource, port: server.port).status == 404)
  }

  @Test func a_request_without_upload_complete_or_with_inconsistent_lengths_is_refused() throws {
    let server = try FaultServer.started()
    defer { server.stop() }
    let missing = try RawHTTP.request(
      "POST", "/rufh/raw", port: server.port, body: Array("hello".utf8))
    #expect(missing.status == 400)
    let inconsistent = try create(server, "hello", complete: true, interop: false)
    #expect(inconsistent.status == 400, "Upload-Length 10 beside a complete 5-byte content")
  }
}
