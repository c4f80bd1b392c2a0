import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// With a finisher (`--fsync`), a download's resume state is written on the finisher's
/// thread (`LocalDownload.recordState`): it lands, the latest queued wins, and none outlives
/// the file being finished or discarded. `FileFinisher.stop()` returns once everything
/// submitted before has run.
@Suite("Resume states written on the finisher's thread")
struct QueuedStateTests {
  let folder: TemporaryDirectory
  let finisher = FileFinisher()
  let local: LocalDownload

  init() throws {
    folder = try TemporaryDirectory(prefix: "haul-queued-state")
    local = try LocalDownload(
      directory: try OutputDirectory(path: folder.path), path: "f.bin", durable: true,
      finisher: finisher)
  }

  private func state(_ validator: String) -> ResumeState {
    ResumeState(url: "http://h/f.bin", sha256: nil, size: 8, validator: validator, total: 8)
  }

  private var stateExists: Bool {
    FileManager.default.fileExists(atPath: folder.file("f.bin.haul-state"))
  }

  @Test func a_queued_state_lands_and_the_latest_wins() async throws {
    defer { folder.remove() }
    try local.recordState(state("\"v1\""))
    try local.recordState(state("\"v2\""))
    await finisher.stop()
    #expect(local.readState()?.validator == "\"v2\"")
  }

  @Test func no_queued_state_outlives_a_finished_file() async throws {
    defer { folder.remove() }
    let fd = try local.openPartial(truncate: true)
    defer { close(fd) }
    try local.recordState(state("\"v1\""))
    try local.finish(partial: fd)
    await finisher.stop()
    #expect(!stateExists)
    #expect(FileManager.default.fileExists(atPath: folder.file("f.bin")))
  }

  @Test func no_queued_state_outlives_a_discarded_partial() async throws {
    defer { folder.remove() }
    let fd = try local.openPartial(truncate: true)
    close(fd)
    try local.recordState(state("\"v1\""))
    local.discardPartial()
    await finisher.stop()
    #expect(!stateExists)
    #expect(local.partial() == nil)
  }

  @Test func a_body_from_the_first_byte_removes_an_older_state_before_it_is_written()
    async throws
  {
    defer { folder.remove() }
    try local.writeState(state("\"v0\""))
    let fd = try local.openPartial(truncate: true)
    defer { close(fd) }
    let sink = DownloadSink(
      fd: fd, local: local, hasher: nil, requested: nil, expectedSize: 8, state: state("\"v1\""),
      progress: ProgressCounter())
    #expect(
      try sink.receive(
        head: ResponseHead(
          status: 200, headers: [HTTPField("Content-Length", "8"), HTTPField("ETag", "\"v1\"")])))
    #expect(!stateExists, "the state of another body is gone before a byte lands")
    try [UInt8](repeating: 1, count: 3).withUnsafeBytes { try sink.receive(body: $0) }
    try sink.flush()
    await finisher.stop()
    #expect(local.readState()?.validator == "\"v1\"")
  }
}
