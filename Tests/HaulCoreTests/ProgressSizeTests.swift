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

@Suite("Progress: the run's bytes known count sizes learned for entries without one")
final class ProgressLearnedSizesTests {
  let directory = FileManager.default.temporaryDirectory
    .appendingPathComponent("haul-learned-\(UUID().uuidString)").path

  deinit { try? FileManager.default.removeItem(atPath: directory) }

  func entry(_ line: Int, _ name: String, size: Int64?) -> ManifestEntry {
    let url = "http://h/\(name)"
    return ManifestEntry(
      line: line, text: "{\"url\":\"\(url)\"}", url: URL(string: url)!, mirrors: [],
      path: name, size: size, sha256: nil)
  }

  @Test func ended_entries_without_a_size_count_their_length_and_sized_ones_do_not() async throws {
    let transport = ScriptedTransport { request, _ in
      switch request.url.lastPathComponent {
      case "unsized.bin": .init(status: 200, body: [UInt8](repeating: 1, count: 1000))
      case "sized.bin": .init(status: 200, body: [UInt8](repeating: 2, count: 500))
      default: .init(status: 404)
      }
    }
    let scheduler = Scheduler(
      transport: transport,
      options: SchedulerOptions(outputDirectory: directory, concurrency: 2, retries: 0))
    let entries = [
      entry(1, "unsized.bin", size: nil), entry(2, "sized.bin", size: 500),
      entry(3, "missing.bin", size: nil),
    ]
    var last: ProgressSnapshot?
    for await event in scheduler.run(entries) {
      if case .progress(let snapshot) = event { last = snapshot }
    }
    let snapshot = try #require(last)
    #expect(snapshot.completedBytes == 1500)
    // The failed entry's size stays 0, but it is no longer one whose size is unknown.
    #expect(snapshot.learnedBytes == 1000)
    #expect(snapshot.learnedEntries == 2)
  }
}
