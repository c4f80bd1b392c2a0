import Foundation
import HaulCore
import HaulTestSupport
import Testing

@Suite("Download sink: the digests a server declares are computed, kept and recorded")
struct DownloadSinkServerDigestTests {
  let folder: TemporaryDirectory
  let local: LocalDownload
  let body: [UInt8] = TestContent.bytes(seed: 44, count: 300_000)

  init() throws {
    folder = try TemporaryDirectory(prefix: "haul-sink-server-digests")
    local = try LocalDownload(
      directory: try OutputDirectory(path: folder.path), path: "f.bin", durable: false)
  }

  private func hex(_ algorithm: DigestAlgorithm, _ bytes: ArraySlice<UInt8>) -> String {
    StreamingDigest.hex(algorithm, of: bytes)
  }

  private func field(_ name: String, _ value: String) -> HTTPField { HTTPField(name, value) }

  /// `Repr-Digest: sha-512=:…:` of the whole body.
  private var reprSHA512: HTTPField {
    field("Repr-Digest", "sha-512=:\(DeclaredDigestFields.base64(hex(.sha512, body[...]))):")
  }

  private func sink(
    fd: Int32, hasher: DigestSet?, from start: Int64 = 0, state: ResumeState? = nil
  ) -> DownloadSink {
    DownloadSink(
      fd: fd, local: local, hasher: hasher,
      requested: start > 0 ? ByteRange(start: start) : nil, expectedSize: Int64(body.count),
      state: state
        ?? ResumeState(
          url: "http://h/f.bin", sha256: nil, size: Int64(body.count), validator: "\"v\"",
          total: Int64(body.count)),
      progress: ProgressCounter(), readsServerDigests: true)
  }

  private func feed(_ sink: DownloadSink, _ bytes: ArraySlice<UInt8>) throws {
    var start = bytes.startIndex
    while start < bytes.endIndex {
      let end = min(start + 50_000, bytes.endIndex)
      try bytes[start..<end].withUnsafeBytes { try sink.receive(body: $0) }
      start = end
    }
  }

  @Test func a_fresh_body_is_hashed_with_the_algorithm_its_server_declares() async throws {
    defer { folder.remove() }
    let fd = try local.openPartial(truncate: true)
    defer { close(fd) }
    // No digest was wanted before the head: the declared one is added before the first byte.
    let sink = sink(fd: fd, hasher: nil)
    let head = ResponseHead(
      status: 200, headers: [field("Content-Length", "\(body.count)"), reprSHA512])
    #expect(try sink.receive(head: head))
    #expect(sink.hashes)
    try feed(sink, body[...])
    #expect(sink.serverDigests.map(\.source) == ["server:repr-digest:sha-512"])
    #expect(await sink.digest() == [.sha512: hex(.sha512, body[...])])
  }

  @Test func a_resumed_body_rehashes_its_prefix_for_a_newly_declared_algorithm() async throws {
    defer { folder.remove() }
    let prefix = 120_000
    let fd = try local.openPartial(truncate: true)
    defer { close(fd) }
    _ = body[..<prefix].withUnsafeBytes { pwrite(fd, $0.baseAddress, prefix, 0) }
    let hasher = DigestSet([.sha256])
    body[..<prefix].withUnsafeBytes { hasher.update($0) }
    let sink = sink(fd: fd, hasher: hasher, from: Int64(prefix))
    let md5 = DeclaredDigestFields.base64(hex(.md5, body[...]))
    let head = ResponseHead(
      status: 206,
      headers: [
        field("Content-Range", "bytes \(prefix)-\(body.count - 1)/\(body.count)"),
        field("Content-Length", "\(body.count - prefix)"), field("ETag", "\"v\""),
        field("Digest", "MD5=\(md5)"),
      ])
    #expect(try sink.receive(head: head))
    try feed(sink, body[prefix...])
    #expect(await sink.digest() == [.sha256: hex(.sha256, body[...]), .md5: hex(.md5, body[...])])
  }

  @Test func a_206s_content_digest_is_not_taken_for_the_whole_file() throws {
    defer { folder.remove() }
    let fd = try local.openPartial(truncate: true)
    defer { close(fd) }
    let sink = sink(fd: fd, hasher: nil, from: 1000)
    _ = body[..<1000].withUnsafeBytes { pwrite(fd, $0.baseAddress, 1000, 0) }
    let part = DeclaredDigestFields.base64(hex(.sha256, body[1000...]))
    let head = ResponseHead(
      status: 206,
      headers: [
        field("Content-Range", "bytes 1000-\(body.count - 1)/\(body.count)"),
        field("ETag", "\"v\""), field("Content-Digest", "sha-256=:\(part):"),
      ])
    #expect(try sink.receive(head: head))
    #expect(sink.serverDigests.isEmpty)
    #expect(!sink.hashes)
  }

  @Test func the_state_records_the_declared_digests_and_a_resume_keeps_the_first_seen() throws {
    defer { folder.remove() }
    let fd = try local.openPartial(truncate: true)
    defer { close(fd) }
    let first = sink(fd: fd, hasher: nil)
    let head = ResponseHead(
      status: 200,
      headers: [field("Content-Length", "\(body.count)"), field("ETag", "\"v\""), reprSHA512])
    #expect(try first.receive(head: head))
    try feed(first, body[..<100_000])
    try first.flush()
    let saved = try #require(local.readState())
    #expect(saved.server == first.serverDigests)
    #expect(saved.server?.first?.hex == hex(.sha512, body[...]))

    // A resume whose 206 declares another value for the same field keeps the recorded one;
    // a field the first response lacked is added.
    let other = DeclaredDigestFields.base64(hex(.sha512, body[1...]))
    let sha256 = DeclaredDigestFields.base64(hex(.sha256, body[...]))
    let resumed = sink(
      fd: fd, hasher: DigestSet([.sha512]), from: Int64(100_000), state: saved)
    let again = ResponseHead(
      status: 206,
      headers: [
        field("Content-Range", "bytes 100000-\(body.count - 1)/\(body.count)"),
        field("ETag", "\"v\""), field("Repr-Digest", "sha-512=:\(other):"),
        field("x-amz-checksum-sha256", sha256),
      ])
    #expect(try resumed.receive(head: again))
    #expect(
      resumed.serverDigests.map(\.source) == [
        "server:repr-digest:sha-512", "server:x-amz-checksum-sha256",
      ])
    #expect(resumed.serverDigests[0].hex == hex(.sha512, body[...]))
  }

  @Test func a_restarted_body_drops_the_digests_its_state_recorded() throws {
    defer { folder.remove() }
    let fd = try local.openPartial(truncate: true)
    defer { close(fd) }
    _ = body[..<1000].withUnsafeBytes { pwrite(fd, $0.baseAddress, 1000, 0) }
    var state = ResumeState(
      url: "http://h/f.bin", sha256: nil, size: Int64(body.count), validator: "\"old\"",
      total: Int64(body.count))
    state.server = [ExpectedDigest(algorithm: .md5, hex: hex(.md5, body[1...]), source: "x")]
    let sink = sink(fd: fd, hasher: DigestSet([.md5]), from: 1000, state: state)
    // A 200 to the range request: another version, from byte 0.
    let head = ResponseHead(status: 200, headers: [field("Content-Length", "\(body.count)")])
    #expect(try sink.receive(head: head))
    #expect(sink.serverDigests.isEmpty)
  }

  @Test func a_state_written_before_server_digests_still_resumes() throws {
    // The encoding of a state file from before `server` existed.
    let line = Array(
      #"{"size":8,"total":8,"url":"http:\/\/h\/f.bin","validator":"\"v\""}"#.utf8)
    let bytes = line + [0x0A] + Array(SHA256.hex(of: line).utf8) + [0x0A]
    let state = try #require(ResumeState.decode(bytes))
    #expect(state.validator == "\"v\"")
    #expect(state.server == nil)
    let round = ResumeState.decode(
      ResumeState(
        url: "u", sha256: nil, size: nil, validator: "\"v\"", total: nil,
        server: [ExpectedDigest(algorithm: .sha1, hex: "ab", source: "server:digest:sha")]
      ).encoded())
    #expect(round?.server?.first?.algorithm == .sha1)
  }
}
