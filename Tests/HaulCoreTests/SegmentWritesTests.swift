import Foundation
import HaulTestSupport
import Testing

@testable import HaulCore

#if canImport(Glibc)
  import Glibc
#endif

/// How a segment's bytes reach the partial file: gathered into writes of
/// `DownloadSink.writeSize`, the segment's progress (its resume state) counting only bytes
/// written, a file with no digest to compute never read back, and the digests of one that
/// has some exact whatever order its segments arrive in.
@Suite("Segment writes: gathered, counted once on disk, hashed once in file order")
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

  @Test func without_digests_the_frontier_moves_over_written_bytes_without_reading_them() {
    // fd -1: any read back would fail.
    var plan = SegmentProgress.plan(total: 100, count: 2)
    plan[0].next = 50
    plan[1].next = 70
    let file = SegmentedFile(fd: -1, segments: plan, hasher: nil, counter: ProgressCounter())

    #expect(file.frontier == 70)
  }

  /// A 206 head for the range `start...end` of a file of `total` bytes.
  static func partialHead(_ start: Int, _ end: Int, of total: Int) -> ResponseHead {
    ResponseHead(
      status: 206,
      headers: [
        HTTPField("Content-Range", "bytes \(start)-\(end)/\(total)"),
        HTTPField("Content-Length", "\(end - start + 1)"),
      ])
  }

  /// Writes what is left of segment `index` of `file` from `content` through a sink.
  static func fill(_ file: SegmentedFile, segment index: Int, _ content: [UInt8]) throws {
    let segment = file.progress[index]
    let total = content.count
    let sink = SegmentSink(
      file: file, index: index, requested: ByteRange(start: segment.next, end: segment.end),
      total: Int64(total), counter: ProgressCounter())
    _ = try sink.receive(head: partialHead(Int(segment.next), Int(segment.end), of: total))
    try feed(sink, content, from: Int(segment.next), count: Int(segment.end - segment.next + 1))
    try sink.flush()
  }

  @Test func the_digests_cover_the_whole_file_whatever_order_the_segments_arrive_in() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-segment-digests")
    defer { directory.remove() }
    let fd = open(directory.file("partial"), O_RDWR | O_CREAT | O_TRUNC, 0o644)
    try #require(fd >= 0)
    defer { close(fd) }
    // Given three segments, each larger than a write and than the worker's read-back,
    let total = 3 * (DigestWorker.chunk + DownloadSink.writeSize) + 7
    let content = Self.content(total)
    let file = SegmentedFile(
      fd: fd, segments: SegmentProgress.plan(total: Int64(total), count: 3),
      hasher: DigestSet([.sha256, .md5]), counter: ProgressCounter())
    defer { file.abandon() }

    // when the last arrives first, then the first, then the middle one,
    try Self.fill(file, segment: 2, content)
    #expect(file.frontier == 0)
    try Self.fill(file, segment: 0, content)
    #expect(file.frontier == file.progress[1].start)
    try Self.fill(file, segment: 1, content)
    #expect(file.frontier == Int64(total))

    // then the digests are those of the whole file.
    let digests = try await file.digests()
    #expect(digests[.sha256] == SHA256.hex(of: content))
    #expect(digests[.md5] == StreamingDigest.hex(.md5, of: content))
  }

  @Test func a_resumed_file_hashes_the_bytes_already_on_disk_too() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-segment-resume-digests")
    defer { directory.remove() }
    let path = directory.file("partial")
    let total = 2 * DigestWorker.chunk + 11
    let content = Self.content(total)
    // Given a partial file that an earlier run filled in part, both segments begun,
    var plan = SegmentProgress.plan(total: Int64(total), count: 2)
    plan[0].next = 1000
    plan[1].next = plan[1].start + 5000
    var onDisk = [UInt8](repeating: 0, count: Int(plan[1].next))
    onDisk[..<1000] = content[..<1000]
    onDisk[Int(plan[1].start)...] = content[Int(plan[1].start)..<Int(plan[1].next)]
    try Data(onDisk).write(to: URL(fileURLWithPath: path))
    let fd = open(path, O_RDWR)
    try #require(fd >= 0)
    defer { close(fd) }
    let file = SegmentedFile(
      fd: fd, segments: plan, hasher: DigestSet([.sha256]), counter: ProgressCounter())
    defer { file.abandon() }
    #expect(file.frontier == 1000)

    // when the rest arrives,
    try Self.fill(file, segment: 1, content)
    try Self.fill(file, segment: 0, content)

    // then the digest is the whole file's.
    #expect(file.frontier == Int64(total))
    #expect(try await file.digests()[.sha256] == SHA256.hex(of: content))
  }
}
