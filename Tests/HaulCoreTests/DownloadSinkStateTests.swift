import Foundation
import HaulCore
import HaulTestSupport
import Testing

@Suite("Download sink: the resume state is written only when it can serve")
struct DownloadSinkStateTests {
  let folder: TemporaryDirectory
  let local: LocalDownload

  init() throws {
    folder = try TemporaryDirectory(prefix: "haul-sink-state")
    local = try LocalDownload(
      directory: try OutputDirectory(path: folder.path), path: "f.bin", durable: false)
  }

  private func sink(fd: Int32) -> DownloadSink {
    DownloadSink(
      fd: fd, local: local, hasher: DigestSet([.sha256]), requested: nil, expectedSize: 8,
      state: ResumeState(url: "http://h/f.bin", sha256: nil, size: 8, validator: nil, total: nil),
      progress: ProgressCounter())
  }

  private let head = ResponseHead(
    status: 200, headers: [HTTPField("Content-Length", "8"), HTTPField("ETag", "\"v1\"")])

  private var stateExists: Bool {
    FileManager.default.fileExists(atPath: folder.file("f.bin.haul-state"))
  }

  @Test func a_body_that_arrives_whole_writes_no_state_and_finishes_cleanly() throws {
    defer { folder.remove() }
    let fd = try local.openPartial(truncate: true)
    defer { close(fd) }
    let sink = sink(fd: fd)
    #expect(try sink.receive(head: head))
    #expect(!stateExists, "nothing is recorded before a byte lands")
    try [UInt8](repeating: 7, count: 8).withUnsafeBytes { try sink.receive(body: $0) }
    #expect(!stateExists)
    try local.finish(partial: fd)
    #expect(FileManager.default.fileExists(atPath: folder.file("f.bin")))
  }

  @Test func a_small_body_in_pieces_writes_no_state() throws {
    defer { folder.remove() }
    let fd = try local.openPartial(truncate: true)
    defer { close(fd) }
    let sink = sink(fd: fd)
    #expect(try sink.receive(head: head))
    try [UInt8](repeating: 7, count: 3).withUnsafeBytes { try sink.receive(body: $0) }
    #expect(!stateExists, "the bytes are still in the buffer: a state could resume nothing")
    try [UInt8](repeating: 7, count: 5).withUnsafeBytes { try sink.receive(body: $0) }
    #expect(!stateExists)
    try local.finish(partial: fd)
    #expect(!stateExists)
    #expect(
      FileManager.default.contents(atPath: folder.file("f.bin")) == Data(repeating: 7, count: 8))
  }

  /// A sink for a body of `size` bytes with an ETag, and its head.
  private func sink(fd: Int32, size: Int) -> (DownloadSink, ResponseHead) {
    let sink = DownloadSink(
      fd: fd, local: local, hasher: nil, requested: nil, expectedSize: Int64(size),
      state: ResumeState(
        url: "http://h/f.bin", sha256: nil, size: Int64(size), validator: nil, total: nil),
      progress: ProgressCounter())
    let head = ResponseHead(
      status: 200, headers: [HTTPField("Content-Length", "\(size)"), HTTPField("ETag", "\"v1\"")])
    return (sink, head)
  }

  @Test func a_large_body_records_its_validator_before_its_first_write() throws {
    defer { folder.remove() }
    let size = 3 * DownloadSink.gatherSize
    let body = TestContent.bytes(seed: 9, count: size)
    let fd = try local.openPartial(truncate: true)
    defer { close(fd) }
    let (sink, head) = sink(fd: fd, size: size)
    #expect(try sink.receive(head: head))
    let chunk = 16 << 10
    var index = 0
    while fileSize(fd) == 0 {
      #expect(!stateExists)
      try body[index..<(index + chunk)].withUnsafeBytes { try sink.receive(body: $0) }
      index += chunk
    }
    #expect(fileSize(fd) == DownloadSink.gatherSize)
    #expect(local.readState()?.validator == "\"v1\"")
    #expect(local.readState()?.total == Int64(size))
    try body[index...].withUnsafeBytes { try sink.receive(body: $0) }
    try sink.flush()
    try local.finish(partial: fd)
    #expect(!stateExists, "finishing removes the state")
  }

  @Test func a_small_body_cut_short_keeps_its_bytes_and_state_for_the_next_attempt() throws {
    defer { folder.remove() }
    let fd = try local.openPartial(truncate: true)
    defer { close(fd) }
    let (sink, head) = sink(fd: fd, size: 64 << 10)
    #expect(try sink.receive(head: head))
    try [UInt8](repeating: 1, count: 20_000).withUnsafeBytes { try sink.receive(body: $0) }
    #expect(!stateExists)
    // The exchange failed (a reset, a stall, Ctrl-C): what arrived is written out, state first.
    try sink.flush()
    #expect(fileSize(fd) == 20_000)
    #expect(local.readState()?.validator == "\"v1\"")
  }

  @Test func the_state_goes_before_every_write_but_one_that_completes_a_known_length() {
    #expect(!DownloadSink.writesState(beforeWriteEndingAt: 8, total: 8))
    #expect(DownloadSink.writesState(beforeWriteEndingAt: 7, total: 8))
    #expect(DownloadSink.writesState(beforeWriteEndingAt: 8, total: nil))
  }

  private func fileSize(_ fd: Int32) -> Int {
    var info = stat()
    fstat(fd, &info)
    return Int(info.st_size)
  }

  @Test func a_body_in_small_chunks_reaches_the_file_in_large_writes() throws {
    defer { folder.remove() }
    let chunk = 4096
    let count = 2 * DownloadSink.gatherSize / chunk + 3
    let body = TestContent.bytes(seed: 5, count: chunk * count)
    let fd = try local.openPartial(truncate: true)
    defer { close(fd) }
    let sink = DownloadSink(
      fd: fd, local: local, hasher: nil, requested: nil, expectedSize: nil,
      state: ResumeState(url: "http://h/f.bin", sha256: nil, size: nil, validator: nil, total: nil),
      progress: ProgressCounter())
    #expect(try sink.receive(head: ResponseHead(status: 200)))
    func onDisk() -> Int {
      var info = stat()
      fstat(fd, &info)
      return Int(info.st_size)
    }
    var sizes: Set<Int> = []
    for index in 0..<count {
      try body[(index * chunk)..<((index + 1) * chunk)].withUnsafeBytes {
        try sink.receive(body: $0)
      }
      sizes.insert(onDisk())
    }
    #expect(sizes == [0, DownloadSink.gatherSize, 2 * DownloadSink.gatherSize])
    try sink.flush()
    #expect(onDisk() == body.count)
    #expect(FileManager.default.contents(atPath: folder.file("f.bin.haul-partial")) == Data(body))
  }

  /// A chunk larger than the largest write (URLSession hands over what it read) reaches the
  /// file whole and in place, through writes of at most `writeSize`.
  @Test func a_chunk_larger_than_a_write_lands_whole_at_its_offset() throws {
    defer { folder.remove() }
    let size = 3 * DownloadSink.gatherSize + 5
    let body = TestContent.bytes(seed: 11, count: size)
    let fd = try local.openPartial(truncate: true)
    defer { close(fd) }
    let (sink, head) = sink(fd: fd, size: size)
    #expect(try sink.receive(head: head))
    let first = 2 * DownloadSink.gatherSize + 3
    try body[..<first].withUnsafeBytes { try sink.receive(body: $0) }
    try body[first...].withUnsafeBytes { try sink.receive(body: $0) }
    try sink.flush()
    #expect(fileSize(fd) == size)
    #expect(
      FileManager.default.contents(atPath: folder.file("f.bin.haul-partial")) == Data(body))
  }

  @Test func finishing_removes_a_state_left_by_an_earlier_run() throws {
    defer { folder.remove() }
    try local.writeState(
      ResumeState(url: "http://h/other", sha256: nil, size: 8, validator: "\"v0\"", total: 8))
    let fresh = try LocalDownload(
      directory: try OutputDirectory(path: folder.path), path: "f.bin", durable: false)
    #expect(fresh.readState() != nil)
    let fd = try fresh.openPartial(truncate: true)
    defer { close(fd) }
    try fresh.finish(partial: fd)
    #expect(!stateExists)
  }
}
