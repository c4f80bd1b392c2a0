import Foundation
import HaulCore
import HaulTestSupport
import Testing

@Suite("Progress: a transfer's size is learned from its response")
struct ProgressSizeTests {
  private func expected(requested: ByteRange?, headers: [HTTPField], status: Int) throws
    -> Int64?
  {
    let folder = try TemporaryDirectory(prefix: "haul-progress-size")
    defer { folder.remove() }
    let local = try LocalDownload(
      directory: try OutputDirectory(path: folder.path), path: "f.bin", durable: false)
    let fd = try local.openPartial(truncate: true)
    defer { close(fd) }
    let progress = ProgressCounter()
    let sink = DownloadSink(
      fd: fd, local: local, hasher: nil, requested: requested, expectedSize: nil,
      state: ResumeState(url: "u", sha256: nil, size: nil, validator: "\"v\"", total: nil),
      progress: progress)
    #expect(progress.expected == nil, "nothing is known before the head")
    _ = try sink.receive(head: ResponseHead(status: status, headers: headers))
    return progress.expected
  }

  @Test func content_length_gives_the_size() throws {
    #expect(
      try expected(requested: nil, headers: [HTTPField("Content-Length", "1234")], status: 200)
        == 1234)
  }

  @Test func a_resumed_body_gives_the_content_range_total() throws {
    let headers = [
      HTTPField("Content-Range", "bytes 100-4999/5000"), HTTPField("Content-Length", "4900"),
      HTTPField("ETag", "\"v\""),
    ]
    #expect(try expected(requested: ByteRange(start: 100), headers: headers, status: 206) == 5000)
  }

  @Test func a_body_of_unknown_length_leaves_it_unknown() throws {
    #expect(try expected(requested: nil, headers: [], status: 200) == nil)
  }
}
