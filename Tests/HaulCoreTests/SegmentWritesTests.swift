import Foundation
import HaulTestSupport
import Testing

@testable import HaulCore

#if canImport(Glibc)
  import Glibc
#endif

/// How a segment's bytes reach the partial file: gathered into writes of
/// `DownloadSink.writeSize`, the segment's progress (its resume state) counting only bytes
/// written, and a file with no digest to compute never read back.
@Suite("Segment writes: gathered, counted once on disk, not read back without digests")
struct SegmentWritesTests {
  static let chunk = 16 << 10

  /// The bytes of a segmented file of `total` bytes, position by position.
  static func content(_ total: Int) -> [UInt8] {
    (0..<total).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
  }

  /// Feeds `bytes` of `content` from `start` to `sink` in transport-sized chunks.
  static func feed(_ sink: SegmentSink, _ content: [UInt8], from start: Int, count: Int) throws {
    var at = start
    while at < start + count {
      let end = min(start + count, at + chunk)
      try content[at..<end].withUnsafeBytes { try sink.receive(body: $0) }
      at = end
    }
  }

  @Test func chunks_are_gathered_and_progress_counts_only_what_is_written() throws {
    let directory = try TemporaryDirectory(prefix: "haul-segment-writes")
    defer { directory.remove() }
    let path = directory.file("partial")
    let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o644)
    try #require(fd >= 0)
    defer { close(fd) }
    let writeSize = DownloadSink.writeSize
    let total = 2 * writeSize + 3 * Self.chunk
    let content = Self.content(total)
    let file = SegmentedFile(
      fd: fd, segments: [SegmentProgress(start: 0, end: Int64(total - 1), next: 0)], hasher: nil,
      counter: ProgressCounter())
    let sink = SegmentSink(
      file: file, index: 0, requested: ByteRange(start: 0, end: Int64(total - 1)),
      total: Int64(total), counter: ProgressCounter())
    #expect(
      try sink.receive(
        head: ResponseHead(
          status: 206,
          headers: [
            HTTPField("Content-Range", "bytes 0-\(total - 1)/\(total)"),
            HTTPField("Content-Length", "\(total)"),
          ])))

    // Given a first write's worth and one chunk more, when they arrive,
    try Self.feed(sink, content, from: 0, count: writeSize + Self.chunk)
    // then one write is on disk and the chunk waits for the next.
    #expect(file.progress[0].next == Int64(writeSize))
    #expect(sink.offset == Int64(writeSize + Self.chunk))

    // When the exchange ends there, the flush writes what waited.
    try sink.flush()
    #expect(file.progress[0].next == Int64(writeSize + Self.chunk))

    // And the segment's last byte is written as it arrives, with no flush.
    let flushed = writeSize + Self.chunk
    try Self.feed(sink, content, from: flushed, count: total - flushed)
    #expect(file.progress[0].isComplete)
    let onDisk = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    #expect(onDisk == content)
  }

  @Test func without_digests_the_frontier_moves_over_written_bytes_without_reading_them() throws {
    // fd -1: any read back would fail.
    var plan = SegmentProgress.plan(total: 100, count: 2)
    plan[0].next = 50
    plan[1].next = 70
    let file = SegmentedFile(fd: -1, segments: plan, hasher: nil, counter: ProgressCounter())

    try file.catchUp()

    #expect(file.frontier == 70)
  }

  @Test func with_digests_the_frontier_stops_where_the_prefix_is_hashed() throws {
    var plan = SegmentProgress.plan(total: 100, count: 2)
    plan[1].next = 70
    let file = SegmentedFile(
      fd: -1, segments: plan, hasher: DigestSet([.sha256]), counter: ProgressCounter())

    try file.catchUp()

    #expect(file.frontier == 0)
  }
}
