import Foundation
import HaulTestSupport
import Testing

@testable import HaulCore

@Suite("Server timestamps: a finished download's mtime is its Last-Modified")
struct RemoteTimeTests {
  /// 2001-09-09 01:46:40 UTC.
  private let lastModified = "Sun, 09 Sep 2001 01:46:40 GMT"
  private let epoch = 1_000_000_000

  /// Downloads "abcdefgh" into f.bin, resuming after `prefix` bytes when it is not 0, with
  /// `headers` on the response; returns the file's mtime in seconds.
  private func download(
    remoteTime: Bool, prefix: Int = 0, listedTime: Int? = nil, headers: [HTTPField]
  ) throws -> Int {
    let folder = try TemporaryDirectory(prefix: "haul-remote-time")
    defer { folder.remove() }
    let local = try LocalDownload(
      directory: try OutputDirectory(path: folder.path), path: "f.bin", durable: false,
      remoteTime: remoteTime, listedTime: listedTime)
    let body = Array("abcdefgh".utf8)
    let fd = try local.openPartial(truncate: true)
    defer { close(fd) }
    _ = body[..<prefix].withUnsafeBytes { pwrite(fd, $0.baseAddress, prefix, 0) }
    let sink = DownloadSink(
      fd: fd, local: local, hasher: nil,
      requested: prefix == 0 ? nil : ByteRange(start: Int64(prefix)), expectedSize: 8,
      state: ResumeState(url: "u", sha256: nil, size: 8, validator: "\"v\"", total: 8),
      progress: ProgressCounter())
    var fields = headers + [HTTPField("Content-Length", "\(8 - prefix)")]
    if prefix > 0 { fields.append(HTTPField("Content-Range", "bytes \(prefix)-7/8")) }
    #expect(try sink.receive(head: ResponseHead(status: prefix == 0 ? 200 : 206, headers: fields)))
    try body[prefix...].withUnsafeBytes { try sink.receive(body: $0) }
    try sink.flush()
    try local.finish(partial: fd)
    var status = stat()
    #expect(stat(folder.file("f.bin"), &status) == 0)
    return status.st_mtim.tv_sec
  }

  @Test func the_final_responses_last_modified_becomes_the_mtime() throws {
    let mtime = try download(
      remoteTime: true, headers: [HTTPField("Last-Modified", lastModified)])
    #expect(mtime == epoch)
  }

  @Test func a_resumed_download_gets_it_too() throws {
    let mtime = try download(
      remoteTime: true, prefix: 3,
      headers: [HTTPField("Last-Modified", lastModified), HTTPField("ETag", "\"v\"")])
    #expect(mtime == epoch)
  }

  @Test func without_remote_time_the_file_keeps_the_download_time() throws {
    let mtime = try download(
      remoteTime: false, headers: [HTTPField("Last-Modified", lastModified)])
    #expect(abs(mtime - Int(Date().timeIntervalSince1970)) < 60)
  }

  @Test func a_missing_or_malformed_date_leaves_the_download_time() throws {
    for headers in [[], [HTTPField("Last-Modified", "yesterday")]] {
      let mtime = try download(remoteTime: true, headers: headers)
      #expect(abs(mtime - Int(Date().timeIntervalSince1970)) < 60)
    }
  }

  @Test func a_listed_time_is_the_mtime_when_the_answer_gives_none() throws {
    #expect(try download(remoteTime: true, listedTime: 1_234_567_890, headers: []) == 1_234_567_890)
    let answered = try download(
      remoteTime: true, listedTime: 1_234_567_890,
      headers: [HTTPField("Last-Modified", lastModified)])
    #expect(answered == epoch, "the answer's Last-Modified wins")
    let kept = try download(remoteTime: false, listedTime: 1_234_567_890, headers: [])
    #expect(abs(kept - Int(Date().timeIntervalSince1970)) < 60, "--no-remote-time")
  }

  @Test func a_listed_time_keeps_a_file_only_when_it_matches_or_under_no_remote_time_is_older() {
    #expect(ListedTime.isCurrent(local: 100, listed: 100, remoteTime: true))
    #expect(!ListedTime.isCurrent(local: 100, listed: 101, remoteTime: true))
    #expect(!ListedTime.isCurrent(local: 100, listed: 99, remoteTime: true))
    #expect(ListedTime.isCurrent(local: 100, listed: 99, remoteTime: false))
    #expect(ListedTime.isCurrent(local: 100, listed: 100, remoteTime: false))
    #expect(!ListedTime.isCurrent(local: 100, listed: 101, remoteTime: false))
  }

  @Test func http_dates_of_all_three_forms_parse_to_the_same_second() {
    for text in [
      "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT",
      "Sun Nov  6 08:49:37 1994", " Sun, 06 Nov 1994 08:49:37 GMT ",
    ] {
      #expect(HTTPDate.epochSeconds(text) == 784_111_777, "\(text)")
    }
  }
}
