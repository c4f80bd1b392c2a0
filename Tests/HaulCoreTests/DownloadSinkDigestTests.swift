import Foundation
import HaulCore
import HaulTestSupport
import Testing

@Suite("Download sink: a large body is hashed beside the transfer, to the same digest")
struct DownloadSinkDigestTests {
  let folder: TemporaryDirectory
  let local: LocalDownload

  init() throws {
    folder = try TemporaryDirectory(prefix: "haul-sink-digest")
    local = try LocalDownload(
      directory: try OutputDirectory(path: folder.path), path: "big.bin", durable: false)
  }

  /// Deterministic bytes, large enough for the background digest.
  private func bytes(_ count: Int) -> [UInt8] {
    TestContent.bytes(seed: 5, count: count)
  }

  private func feed(_ sink: DownloadSink, _ body: [UInt8], chunk: Int) throws {
    var start = 0
    while start < body.count {
      let end = min(start + chunk, body.count)
      try body[start..<end].withUnsafeBytes { try sink.receive(body: $0) }
      start = end
    }
  }

  @Test func a_large_body_in_chunks_gets_the_digest_of_its_bytes() async throws {
    defer { folder.remove() }
    let body = bytes(Int(DownloadSink.backgroundDigestThreshold) * 2 + 12_345)
    let fd = try local.openPartial(truncate: true)
    defer { close(fd) }
    let sink = DownloadSink(
      fd: fd, local: local, hasher: DigestSet([.sha256]), requested: nil,
      expectedSize: Int64(body.count),
      state: ResumeState(url: "u", sha256: nil, size: nil, validator: nil, total: nil),
      progress: ProgressCounter())
    let head = ResponseHead(status: 200, headers: [HTTPField("Content-Length", "\(body.count)")])
    #expect(try sink.receive(head: head))
    try feed(sink, body, chunk: 300_000)
    #expect(await sink.digest()?[.sha256] == SHA256.hex(of: body))
  }

  @Test func a_resumed_large_body_digests_the_prefix_and_the_rest() async throws {
    defer { folder.remove() }
    let body = bytes(Int(DownloadSink.backgroundDigestThreshold) + 777_777)
    let prefix = 100_000
    let fd = try local.openPartial(truncate: true)
    defer { close(fd) }
    _ = body[..<prefix].withUnsafeBytes { pwrite(fd, $0.baseAddress, prefix, 0) }
    let hasher = DigestSet([.sha256])
    body[..<prefix].withUnsafeBytes { hasher.update($0) }
    let sink = DownloadSink(
      fd: fd, local: local, hasher: hasher, requested: ByteRange(start: Int64(prefix)),
      expectedSize: Int64(body.count),
      state: ResumeState(url: "u", sha256: nil, size: nil, validator: "\"v\"", total: nil),
      progress: ProgressCounter())
    let head = ResponseHead(
      status: 206,
      headers: [
        HTTPField("Content-Range", "bytes \(prefix)-\(body.count - 1)/\(body.count)"),
        HTTPField("Content-Length", "\(body.count - prefix)"), HTTPField("ETag", "\"v\""),
      ])
    #expect(try sink.receive(head: head))
    try feed(sink, Array(body[prefix...]), chunk: 1 << 19)
    #expect(await sink.digest()?[.sha256] == SHA256.hex(of: body))
  }

  @Test func a_sink_dropped_mid_body_stops_its_worker() async throws {
    defer { folder.remove() }
    let body = bytes(Int(DownloadSink.backgroundDigestThreshold) + 1)
    let fd = try local.openPartial(truncate: true)
    defer { close(fd) }
    var sink: DownloadSink? = DownloadSink(
      fd: fd, local: local, hasher: DigestSet([.sha256]), requested: nil, expectedSize: nil,
      state: ResumeState(url: "u", sha256: nil, size: nil, validator: nil, total: nil),
      progress: ProgressCounter())
    let head = ResponseHead(status: 200, headers: [HTTPField("Content-Length", "\(body.count)")])
    #expect(try sink?.receive(head: head) == true)
    try body[..<1000].withUnsafeBytes { try sink?.receive(body: $0) }
    sink = nil
    // The worker holds its own descriptor: closing ours and removing the file is safe.
    local.discardPartial()
    #expect(!FileManager.default.fileExists(atPath: folder.file("big.bin.haul-partial")))
  }
}
